import HeapGraph

#if canImport(Glibc)
  import Glibc
#endif

/// The closures libdispatch keeps for a `DispatchSource` (its event, cancel and registration
/// handlers) and a `DispatchWorkItem` (its block).
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
/// a moment later. A work item keeps its block until the item itself is deallocated, performed
/// or cancelled: a work item stored in an object its block captures is a cycle in every state.
struct DispatchReferences {
  static let sourceTypeName = "Dispatch.DispatchSource"
  static let workItemTypeName = "Dispatch.DispatchWorkItem"

  /// The source's handlers that are set.
  func references(ofSource object: UInt) -> [RawReference] {
    guard let source = MemoryReader.readWord(at: object &+ DispatchLayout.SwiftWrapper.wrapped), source != 0,
      let unote = Self.unote(ofSource: source)
    else { return [] }
    let handlers = [
      (DispatchLayout.Unote.eventHandler, "event handler"), (DispatchLayout.Unote.cancelHandler, "cancel handler"),
      (DispatchLayout.Unote.registrationHandler, "registration handler"),
    ]
    return handlers.compactMap { offset, label in
      MemoryReader.readWord(at: unote &+ offset).flatMap { Self.closureReference(ofContinuation: $0, label: label) }
    }
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

  /// The work item's block.
  func references(ofWorkItem object: UInt) -> [RawReference] {
    guard let block = MemoryReader.readWord(at: object &+ DispatchLayout.SwiftWrapper.wrapped), let written = Self.privateBlockContent(block)
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
  private static let mallocBlockClass: UInt? = dlsym(nil, "_NSConcreteMallocBlock").map { UInt(bitPattern: $0) }
}
