import Dispatch
import HeapGraph

#if canImport(Glibc)
  import Glibc
#endif

/// The check of libdispatch's layouts (``DispatchLayout``, ``BlockLayout``) against a source of
/// its own, once, before the first capture reads a Dispatch structure: a data source whose
/// handlers are set one after the other to Swift closures that capture nothing. The Swift
/// wrapper's C source, its unote's back link and type name, each handler's slot (it changes when
/// that handler is set, and only then), its continuation and the block made from the closure are
/// read as the readers read them, and compared with what they must be.
///
/// When a fact does not match, the readers of Dispatch structures read nothing, and a capture
/// says why, once:
///
/// ```text
/// libdispatch's layouts are not the ones this build reads (Swift 6.3.1): a Dispatch source's name is Dispatch source, expected Dispatch data-add source; what Dispatch sources and queues hold was not read
/// ```
///
/// The closures capture nothing, so the check leaves no Swift object behind: the C source stays,
/// inactive, with its three blocks (libdispatch stops a process that releases an inactive
/// source, and activating it would run work on libdispatch's threads).
package enum DispatchLayoutCheck: LibraryLayoutCheck {
  /// The first fact that does not match, or `nil`; checked once, in the process (never in a
  /// capture child: the check makes a source).
  package static let mismatch: RuntimeLayoutCheck.Fact? = RuntimeLayoutCheck.firstMismatch(
    in: RuntimeLayoutCheck.probesThisProcess ? facts() : [])
  package static let layouts = "libdispatch's layouts"
  package static let unread = "what Dispatch sources and queues hold"

  /// Every fact, read from a data source made now.
  package static func facts() -> [RuntimeLayoutCheck.Fact] {
    guard let source = DispatchSource.makeUserDataAddSource(queue: .global()) as? DispatchSource else {
      return [RuntimeLayoutCheck.Fact(name: "a Dispatch source's class", expected: "DispatchSource", found: "another class")]
    }
    let wrapper = UInt(bitPattern: Unmanaged.passUnretained(source).toOpaque())
    let cSource = MemoryReader.readWord(at: wrapper &+ DispatchLayout.SwiftWrapper.wrapped) ?? 0
    let unote = MemoryReader.readWord(at: cSource &+ DispatchLayout.Source.refs) ?? 0
    let backLink = MemoryReader.readWord(at: unote &+ DispatchLayout.Unote.ownerLink)
    keep(backLink == ~cSource ? cSource : 0, of: source)
    var facts = [
      RuntimeLayoutCheck.Fact(name: "a Dispatch source's unote's back link", expected: hex(~cSource), found: hex(backLink)),
      RuntimeLayoutCheck.Fact(
        name: "a Dispatch source's name", expected: "Dispatch data-add source", found: DispatchReferences.sourceName(ofUnote: unote)),
    ]
    let slots = [DispatchLayout.Unote.eventHandler, DispatchLayout.Unote.cancelHandler, DispatchLayout.Unote.registrationHandler]
    let setters: [(String, () -> Void)] = [
      ("event", { source.setEventHandler {} }), ("cancel", { source.setCancelHandler {} }),
      ("registration", { source.setRegistrationHandler {} }),
    ]
    for (index, (handler, setHandler)) in setters.enumerated() {
      setHandler()
      let isSet = slots.map { (MemoryReader.readWord(at: unote &+ $0) ?? 0) != 0 }
      facts.append(
        RuntimeLayoutCheck.Fact(
          name: "the Dispatch source handlers set after its \(handler) handler", expected: "\(slots.indices.map { $0 <= index })",
          found: "\(isSet)"))
      facts.append(
        RuntimeLayoutCheck.Fact(
          name: "a Dispatch source's \(handler) handler", expected: "a block of a closure without captures",
          found: describeHandler(continuation: MemoryReader.readWord(at: unote &+ slots[index]) ?? 0)))
    }
    return facts
  }

  /// The C source of the check, retained once more so that releasing its Swift wrapper does
  /// not release it: libdispatch stops a process that releases an inactive source, and
  /// activating it would make libdispatch run work on its threads.
  nonisolated(unsafe) private static var keptSource: UInt = 0

  /// Retains the C source `source` of `wrapper` and keeps it in ``keptSource``; when that
  /// cannot be done (`source` is 0, its unote did not link back to it, or `dispatch_retain` is
  /// not found), retains the wrapper for good instead.
  private static func keep(_ source: UInt, of wrapper: DispatchSource) {
    typealias Retain = @convention(c) (UnsafeMutableRawPointer) -> Void
    guard let pointer = UnsafeMutableRawPointer(bitPattern: source), MemoryReader.readWord(at: source) != nil,
      let retain = dlsym(nil, "dispatch_retain").map({ unsafeBitCast($0, to: Retain.self) })
    else {
      _ = Unmanaged.passRetained(wrapper)
      return
    }
    retain(pointer)
    keptSource = source
  }

  /// `a block of a closure without captures` when the continuation holds a heap block that
  /// captures a Swift closure whose context is null, as the readers find it; what was found
  /// instead otherwise.
  private static func describeHandler(continuation: UInt) -> String {
    guard let flags = MemoryReader.readWord(at: continuation), flags & DispatchLayout.Continuation.blockFlag != 0,
      flags & DispatchLayout.Continuation.privateDataFlag == 0
    else { return "a continuation without a block" }
    let block = MemoryReader.readWord(at: continuation &+ DispatchLayout.Continuation.context) ?? 0
    guard let isa = MemoryReader.readWord(at: block &+ BlockLayout.isa), isa == DispatchReferences.mallocBlockClass else {
      return "no heap block"
    }
    guard let descriptor = MemoryReader.readWord(at: block &+ BlockLayout.descriptor),
      let size = MemoryReader.readWord(at: descriptor &+ BlockLayout.descriptorSize), size == BlockLayout.sizeWithCapturedClosure
    else { return "a block of another size" }
    let function = MemoryReader.readWord(at: block &+ BlockLayout.capturedFunction) ?? 0
    let context = MemoryReader.readWord(at: block &+ BlockLayout.capturedContext)
    return function != 0 && context == 0 ? "a block of a closure without captures" : "a block capturing \(hex(function)), \(hex(context))"
  }
}
