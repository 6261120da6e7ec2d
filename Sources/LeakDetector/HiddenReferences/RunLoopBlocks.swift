import CLeakRuntime

#if canImport(Glibc)
  import Glibc
#endif

/// The blocks `RunLoop.perform(_:)` leaves for a run loop to run: until the loop runs them, its
/// CoreFoundation run loop keeps each (a heap block made from the Swift closure) in a list of
/// `{next, mode, block}` items (``CoreFoundationLayout``). A `RunLoop` holds its
/// `CFRunLoop` in `_cfRunLoopStorage`. The blocks of a `RunLoop` the walk reaches are its edges,
/// labelled `pending block`, with its timers (``RunLoopTimers``); those of the main run loop are
/// roots of kind `runtime`.
///
/// ```text
/// where closure #1 in LeakDetectorTests.DelayedWorker.performOnMainRunLoop() (HiddenOwnerFixtures.swift:68) is held by a block waiting on the main run loop
/// ```
struct RunLoopBlocks {
  static let runLoopTypeName = "Foundation.RunLoop"

  var reflector: RuntimeReflector

  /// The main run loop's `CFRunLoop` (from `CFRunLoopGetMain`, when Foundation is loaded), found
  /// once, in the program's process, never in a capture child: the call may create it. None in a
  /// memory image, whose functions cannot be called.
  static let mainRunLoop: UInt = {
    guard !cleak_reads_memory_image(), let symbol = dlsym(nil, "CFRunLoopGetMain") else { return 0 }
    let getMain = unsafeBitCast(symbol, to: (@convention(c) () -> UnsafeMutableRawPointer?).self)
    return getMain().map { UInt(bitPattern: $0) } ?? 0
  }()

  /// The blocks and scheduled timers (``RunLoopTimers``) of the `RunLoop` at `object`.
  func references(ofRunLoop object: UInt) -> [RawReference] {
    guard let field = reflector.storedPropertyOffset(named: "_cfRunLoopStorage", ofObjectAt: object),
      let runLoop = MemoryReader.readWord(at: object &+ UInt(field)), runLoop != 0
    else { return [] }
    return Self.blocks(ofCFRunLoop: runLoop, label: "pending block") + RunLoopTimers.timers(ofCFRunLoop: runLoop, label: "scheduled timer")
  }

  /// The blocks waiting on the main run loop (those whose closure context `keeping` accepts)
  /// and the timers scheduled on it, as roots.
  static func mainRunLoopWork(keeping: (UInt) -> Bool) -> [RawReference] {
    guard mainRunLoop != 0 else { return [] }
    return blocks(ofCFRunLoop: mainRunLoop, label: "a block waiting on the main run loop", keeping: keeping)
      + RunLoopTimers.timers(ofCFRunLoop: mainRunLoop, label: "the main run loop, until the timer is invalidated")
  }

  private static func blocks(ofCFRunLoop runLoop: UInt, label: String, keeping: (UInt) -> Bool = { _ in true }) -> [RawReference] {
    var item = MemoryReader.readWord(at: runLoop &+ CoreFoundationLayout.RunLoop.blocksHead) ?? 0
    var found: [RawReference] = []
    var walked = 0
    while item != 0 && walked < 100_000 {
      walked += 1
      if let block = MemoryReader.readWord(at: item &+ CoreFoundationLayout.BlockItem.block),
        let reference = DispatchReferences.closureReference(ofBlock: block, label: label, keeping: keeping)
      {
        found.append(reference)
      }
      item = MemoryReader.readWord(at: item &+ CoreFoundationLayout.BlockItem.next) ?? 0
    }
    return found
  }
}
