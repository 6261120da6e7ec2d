import HeapGraph

#if canImport(Glibc)
  import Glibc
#endif

/// The closures libdispatch keeps for a `DispatchSource` (its event, cancel and registration
/// handlers) and a `DispatchWorkItem` (its block), and the names of sources.
///
/// On Linux both Swift classes wrap a C object, one word after the object header. A source's
/// handlers are continuations in its unote (which links back to the source, checked before
/// anything else is read), each holding a heap block; a work item's block is libdispatch's
/// private block, whose private data holds the block written in the source. A block made from a
/// Swift closure captures that closure: its function, then its context, which the block
/// retains. The edge goes to the closure, named by its function:
///
/// ```text
/// Dispatch.DispatchSource.event handler -> closure #2 in LeakTestSupport.Ticker.start(weakly: Bool).capture #0: Ticker -> LeakTestSupport.Ticker.source -> Dispatch.DispatchSource
/// Dispatch.DispatchWorkItem.block -> closure #2 in LeakTestSupport.Incrementer.start(weakly: Bool).capture #0: Incrementer -> LeakTestSupport.Incrementer.item -> Dispatch.DispatchWorkItem
/// ```
///
/// A cancelled source keeps its handlers until libdispatch releases them on the source's queue,
/// a moment later. A source libdispatch keeps registered holds its handlers itself, whoever
/// holds its Swift object: ``PendingDispatchWork`` makes them roots
/// (``handlerReferences(ofRegisteredUnote:keeping:)``). A work item keeps its block until the item itself is deallocated, performed
/// or cancelled: a work item stored in an object its block captures is a cycle in every state.
struct DispatchReferences {
  static let sourceTypeName = "Dispatch.DispatchSource"
  static let workItemTypeName = "Dispatch.DispatchWorkItem"

  /// The source's handlers that are set.
  func references(ofSource object: UInt) -> [RawReference] {
    guard DispatchLayoutCheck.mismatch == nil,
      let source = MemoryReader.readWord(at: object &+ DispatchLayout.SwiftWrapper.wrapped), source != 0,
      let unote = Self.unote(ofSource: source)
    else { return [] }
    return Self.handlers.compactMap { offset, label in
      MemoryReader.readWord(at: unote &+ offset).flatMap { Self.closureReference(ofContinuation: $0, label: label) }
    }
  }

  /// The handler slots of a unote, with their names.
  private static let handlers = [
    (DispatchLayout.Unote.eventHandler, "event handler"), (DispatchLayout.Unote.cancelHandler, "cancel handler"),
    (DispatchLayout.Unote.registrationHandler, "registration handler"),
  ]

  /// The handlers of the live source whose unote is `unote`, one that libdispatch keeps
  /// registered (its unote is in the epoll backend's lists, or an armed timer in a timer heap):
  /// an event can run its handler at any time, so what the handlers capture is held by the
  /// source, not by whoever made it. Each is named by the source and the handler:
  ///
  /// ```text
  /// where closure #1 in SignalStorage.init() is held by Dispatch signal source (SIGUSR2) event handler
  /// ```
  ///
  /// Nothing when the unote and its source do not link to each other. `keeping` filters on the
  /// closures' contexts.
  static func handlerReferences(ofRegisteredUnote unote: UInt, keeping: (UInt) -> Bool) -> [RawReference] {
    guard let owner = MemoryReader.readWord(at: unote &+ DispatchLayout.Unote.ownerLink), owner != 0, owner != ~0,
      MemoryReader.readWord(at: ~owner &+ DispatchLayout.Source.refs) == unote
    else { return [] }
    let source = sourceName(ofUnote: unote)
    return handlers.compactMap { offset, handler in
      MemoryReader.readWord(at: unote &+ offset).flatMap {
        closureReference(ofContinuation: $0, label: "\(source) \(handler)", keeping: keeping)
      }
    }
  }

  /// `Dispatch signal source (SIGUSR2)`, `Dispatch read source (fd 7)`, `Dispatch timer source`:
  /// the kind is the name libdispatch gives the unote's type (without a variant in brackets,
  /// such as a timer's clock), the detail its ident.
  static func sourceName(ofUnote unote: UInt) -> String {
    guard let type = MemoryReader.readWord(at: unote &+ DispatchLayout.Unote.type),
      let kind = cString(at: MemoryReader.readWord(at: type &+ DispatchLayout.SourceType.kindName) ?? 0)
    else { return "Dispatch source" }
    let name = String(kind.prefix { $0 != " " })
    let ident = MemoryReader.readWord(at: unote &+ DispatchLayout.Unote.ident).map { Int32(truncatingIfNeeded: $0) }
    switch (name, ident) {
    case ("signal", let number?): return "Dispatch signal source (\(signalName(number)))"
    case ("read", let descriptor?), ("write", let descriptor?): return "Dispatch \(name) source (fd \(descriptor))"
    default: return "Dispatch \(name) source"
    }
  }

  /// `SIGUSR2` for 12: the names of Linux's standard signals, `signal N` past them.
  private static func signalName(_ number: Int32) -> String {
    let names = [
      "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV", "USR2", "PIPE", "ALRM", "TERM", "STKFLT",
      "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "URG", "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS",
    ]
    return names.indices.contains(Int(number) - 1) ? "SIG" + names[Int(number) - 1] : "signal \(number)"
  }

  /// The C string of lowercase letters, digits, spaces, brackets and hyphens at `address`, up to
  /// 32 bytes, or `nil` when it is not one.
  private static func cString(at address: UInt) -> String? {
    var bytes: [UInt8] = []
    for word in 0..<UInt(4) {
      guard address != 0, let value = MemoryReader.readWord(at: address &+ word &* 8) else { return nil }
      for byte in withUnsafeBytes(of: value, Array.init) {
        if byte == 0 { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
        guard (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || [0x20, 0x28, 0x29, 0x2D].contains(byte) else { return nil }
        bytes.append(byte)
      }
    }
    return nil
  }

  /// The unote of the source `source`, or `nil` when it has none that links back to it (the
  /// back link says this is the source's).
  private static func unote(ofSource source: UInt) -> UInt? {
    guard let unote = MemoryReader.readWord(at: source &+ DispatchLayout.Source.refs), unote != 0,
      MemoryReader.readWord(at: unote &+ DispatchLayout.Unote.ownerLink) == ~source
    else { return nil }
    return unote
  }

  /// The event handler (a continuation) of the internal timer source `source` that `asyncAfter`
  /// made, or `nil` when `source` is not such a source: its unote must link back to it, and its
  /// timer flags have `DISPATCH_TIMER_AFTER`.
  static func afterTimerHandler(ofSource source: UInt) -> UInt? {
    guard let unote = unote(ofSource: source), let timerWord = MemoryReader.readWord(at: unote &+ DispatchLayout.Unote.timerFlagsWord),
      (timerWord >> DispatchLayout.Unote.timerFlagsShift) & DispatchLayout.Unote.timerAfterFlag != 0,
      let handler = MemoryReader.readWord(at: unote &+ DispatchLayout.Unote.eventHandler), handler != 0
    else { return nil }
    return handler
  }

  /// The closure a continuation's block runs, or `nil` when the continuation holds no block of
  /// that shape (its flags, the first word, say whether it holds a block, and whether that is
  /// libdispatch's private block of a work item or of QoS flags). `keeping` filters on the
  /// closure's context before the block is checked further.
  static func closureReference(
    ofContinuation continuation: UInt, label: String, keeping: (UInt) -> Bool = { _ in true }
  ) -> RawReference? {
    guard continuation != 0, let flags = MemoryReader.readWord(at: continuation), flags & DispatchLayout.Continuation.blockFlag != 0,
      let block = MemoryReader.readWord(at: continuation &+ DispatchLayout.Continuation.context)
    else { return nil }
    let written = flags & DispatchLayout.Continuation.privateDataFlag != 0 ? privateBlockContent(block) : block
    return written.flatMap { closureReference(ofBlock: $0, label: label, keeping: keeping) }
  }

  /// The work item's block. Read whatever the sources' check found: a work item's block is no
  /// source's (ThreadSanitizer wraps sources' handlers, which fails that check, but not work
  /// items), and the private block's magic number is checked before its block is read.
  func references(ofWorkItem object: UInt) -> [RawReference] {
    guard let block = MemoryReader.readWord(at: object &+ DispatchLayout.SwiftWrapper.wrapped),
      let written = Self.privateBlockContent(block)
    else { return [] }
    return Self.closureReference(ofBlock: written, label: "block").map { [$0] } ?? []
  }

  /// The block a private block of `dispatch_block_create` wraps (its private data, with its
  /// magic number, starts after the block's header).
  private static func privateBlockContent(_ block: UInt) -> UInt? {
    guard let magic = MemoryReader.readWord(at: block &+ DispatchLayout.PrivateBlock.magic),
      UInt32(truncatingIfNeeded: magic) == DispatchLayout.PrivateBlock.magicValue,
      let written = MemoryReader.readWord(at: block &+ DispatchLayout.PrivateBlock.block), written != 0
    else { return nil }
    return written
  }

  /// The edge to the Swift closure a heap block made from it captures, or `nil` when the block
  /// is not a heap block of that shape (a C block: its captures have no types to read). Blocks
  /// of Foundation's run loops are read with it too (``RunLoopBlocks``).
  static func closureReference(ofBlock block: UInt, label: String, keeping: (UInt) -> Bool = { _ in true }) -> RawReference? {
    guard let context = MemoryReader.readWord(at: block &+ BlockLayout.capturedContext), context != 0, keeping(context),
      let mallocBlock = Self.mallocBlockClass, MemoryReader.readWord(at: block &+ BlockLayout.isa) == mallocBlock,
      let descriptor = MemoryReader.readWord(at: block &+ BlockLayout.descriptor),
      let size = MemoryReader.readWord(at: descriptor &+ BlockLayout.descriptorSize), size >= BlockLayout.sizeWithCapturedClosure,
      let function = MemoryReader.readWord(at: block &+ BlockLayout.capturedFunction)
    else { return nil }
    return RawReference(label: label, ownership: .strong, target: context, function: function)
  }

  /// The class of heap blocks, `_NSConcreteMallocBlock` of the blocks runtime.
  static let mallocBlockClass: UInt? = ProcessSymbols.address(of: "_NSConcreteMallocBlock")
}
