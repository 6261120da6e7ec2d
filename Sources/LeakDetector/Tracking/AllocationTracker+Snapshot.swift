import CLeakRuntime
import HeapGraph

#if canImport(Glibc)
  import Glibc
#endif

extension AllocationTracker {
  /// A heap snapshot of the tracked live objects (optionally of one generation) and everything
  /// they strongly reference (closure contexts, boxes, untracked objects), with every reference's
  /// ownership and label, each tracked object's generation, size and symbolized allocation stack.
  /// Write it with `FileBytes.writeAtomically(snapshot.jsonBytes(), to:)` and analyse it with
  /// `leak-detector analyze`.
  ///
  /// Objects are retained only while the snapshot is taken. Globals and stacks are not scanned;
  /// instead, an object whose strong reference count is higher than the strong references the
  /// snapshot found into it is a root of kind `external` (held by a stack, a global, or an object
  /// outside the snapshot), so `leak-detector analyze` can tell leaked objects (reachable only
  /// from each other) from held ones.
  ///
  /// ```swift
  /// let snapshot = AllocationTracker.snapshot(inGeneration: generation)
  /// try FileBytes.writeAtomically(snapshot.jsonBytes(), to: "screen.heapsnapshot.json")
  /// ```
  public static func snapshot(inGeneration generation: Int? = nil, process: String? = nil) -> HeapSnapshot {
    captureLiveHeap(inGeneration: generation, process: process).snapshot
  }

  /// A heap snapshot of the tracked live objects (optionally of one generation), of `objects`
  /// (alive, and retained by the caller for the duration of the call; they need not be tracked)
  /// and of everything they strongly reference, with the snapshot id of every captured object by
  /// address. The one capture behind ``snapshot(inGeneration:process:)`` and the leak checks.
  package static func captureLiveHeap(
    inGeneration generation: Int? = nil, including objects: [AnyObject] = [], process: String? = nil
  ) -> (snapshot: HeapSnapshot, objectIDs: [UInt: Int64]) {
    var configuration = RetainCycleDetector.Configuration()
    configuration.maxObjects = Int.max
    var capture = LiveHeapCapture(configuration: configuration, metadata: .init(
      tool: "swift-leak-detector AllocationTracker", createdAt: timestamp(), process: process))
    defer { capture.releaseAll() }
    let entries = entries(inGeneration: generation, retaining: true)
    defer { for entry in entries { cleak_release(entry.object) } }
    for entry in entries {
      capture.annotations[entry.object] = .init(generation: Int(entry.generation), size: Int(entry.size), stackID: entry.stack)
    }
    for entry in entries { capture.addRoot(address: entry.object) }
    for object in objects { capture.addRoot(object) }
    capture.run()
    var retainedByCaller: [UInt: Int] = [:]  // the entries' retains, and the caller's array of objects
    for address in entries.map(\.object) + objects.map({ UInt(bitPattern: Unmanaged.passUnretained($0).toOpaque()) }) {
      retainedByCaller[address, default: 0] += 1
    }
    capture.addExternallyHeldObjectsAsRoots(retainedByCaller: retainedByCaller)
    return (capture.snapshot, capture.idByAddress)
  }

  /// Now, as ISO 8601 (UTC).
  private static func timestamp() -> String {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    var time = tm()
    var seconds = now.tv_sec
    gmtime_r(&seconds, &time)
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return "\(time.tm_year + 1900)-\(two(time.tm_mon + 1))-\(two(time.tm_mday))T\(two(time.tm_hour)):\(two(time.tm_min)):\(two(time.tm_sec))Z"
  }
}
