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
  /// The heap is read in a capture child forked from this process (``CaptureLimits``): the
  /// snapshot is one instant of the heap while other threads keep running, and the capture
  /// retains nothing of this process. What it could not see, and capture attempts that failed,
  /// are in `metadata.diagnostics`; the process's memory at the capture (RSS, malloc's arenas,
  /// the Swift objects captured) in `metadata.memory`. Globals and stacks are not scanned;
  /// instead, an object whose strong reference count is higher than the strong references the
  /// snapshot found into it is a root of kind `external` (held by a stack, a global, or an object
  /// outside the snapshot), so `leak-detector analyze` can tell leaked objects (reachable only
  /// from each other) from held ones.
  ///
  /// ```swift
  /// let snapshot = AllocationTracker.snapshot(inGeneration: generation)
  /// try FileBytes.writeAtomically(snapshot.jsonBytes(), to: "screen.heapsnapshot.json")
  /// ```
  public static func snapshot(
    inGeneration generation: Int? = nil, process: String? = nil, limits: CaptureLimits = CaptureLimits()
  ) -> HeapSnapshot {
    captureLiveHeap(inGeneration: generation, process: process, limits: limits).snapshot
  }

  /// A heap snapshot of the tracked live objects (optionally of one generation), of `objects`
  /// (alive, and retained by the caller for the duration of the call; they need not be tracked)
  /// and of everything they strongly reference, with the snapshot id of every captured object by
  /// address. The one capture behind ``snapshot(inGeneration:process:limits:)``, the leak
  /// checks and ``captureWholeProcess(process:limits:)``. `failure` is set when no capture
  /// attempt succeeded (the snapshot is then empty).
  ///
  /// With `rootRegions`, the objects their words refer to are roots too (``RootRegion``). With
  /// `findsUnbalancedRetains`, which needs `rootRegions` to cover every stack, an object held from
  /// outside by a retain that no word of memory accounts for is not a root (``ReferenceCensus``);
  /// `callerStackStart` is where the root regions start on the calling thread's stack, below which
  /// the census counts nothing either.
  package static func captureLiveHeap(
    inGeneration generation: Int? = nil, including objects: [AnyObject] = [], process: String? = nil,
    limits: CaptureLimits = CaptureLimits(), rootRegions: [RootRegion] = [], findsUnbalancedRetains: Bool = false,
    callerStackStart: UInt? = nil
  ) -> (snapshot: HeapSnapshot, objectIDs: [UInt: Int64], failure: CaptureFailure?) {
    var configuration = RetainCycleDetector.Configuration()
    configuration.maxObjects = Int.max
    let included = objects.map { UInt(bitPattern: Unmanaged.passUnretained($0).toOpaque()) }
    let metadata = HeapSnapshot.Metadata(tool: "swift-leak-detector AllocationTracker", createdAt: timestamp(), process: process)
    // Read here, before the capture child is forked: the child's memory is not this process's.
    var memory = ProcessMemory.readNow()
    let (heap, captured, failure) = withExtendedLifetime(objects) {
      CapturedHeap.inChildProcess(limits: limits, metadata: metadata) { progress in
        // Started first, while nothing in this child holds the address of an object.
        var census = findsUnbalancedRetains ? ReferenceCensus(progress: progress, programStackStart: callerStackStart) : nil
        defer { census?.end() }
        let objects = entries(inGeneration: generation)
        let tasks = waitingTasks(inGeneration: generation)
        let entries = objects + tasks
        var annotations: [UInt: HeapWalk.Annotation] = [:]
        for entry in objects {
          annotations[entry.object] = .init(generation: Int(entry.generation), size: Int(entry.size), stackID: entry.stack)
        }
        // The task registry keeps a task's job id where the tracker keeps an object's size: a
        // task's size is unknown.
        for entry in tasks { annotations[entry.object] = .init(generation: Int(entry.generation), size: 0, stackID: entry.stack) }
        var walk = HeapWalk(configuration: configuration, progress: progress, metadata: metadata, annotations: annotations)
        for entry in entries { walk.addStart(address: entry.object) }
        for address in included { walk.addStart(address: address) }
        let rooted = walk.run().rooted(in: rootRegions)
        // The caller's array holds each included object once more than the program does.
        return rooted.accounted(retainedByCaller: included.reduce(into: [:]) { $0[$1, default: 0] += 1 }, census: census)
      }
    }
    var snapshot = captured
    if failure == nil { memory.recordSwiftObjects(of: snapshot) }
    snapshot.metadata.memory = memory
    return (snapshot, heap.objectIDsByAddress, failure)
  }

  /// A snapshot of every tracked live object of this process and what they reference, with the
  /// roots a leak analysis needs: the objects that global data, the live part of each thread's
  /// stack, the calling thread's thread-local storage or a live thread's pthread-specific values
  /// and dynamic TLS refer to (globals named by their variable), and those held from outside the
  /// snapshot (reference counts) unless no word of memory refers to them (an unbalanced retain),
  /// which is decided only when the root regions miss no word (every other thread blocked, their
  /// pthread-specific values read). What `leak-detector run` records when a program exits or
  /// receives its snapshot signal.
  package static func captureWholeProcess(process: String?, limits: CaptureLimits = CaptureLimits())
    -> (snapshot: HeapSnapshot, failure: CaptureFailure?)
  {
    var marker = 0
    let stackPointer = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
    let (regions, notes, findsUnbalancedRetains) = RootRegion.ofThisProcess(callerStackPointer: stackPointer)
    var (snapshot, _, failure) = captureLiveHeap(
      process: process, limits: limits, rootRegions: regions, findsUnbalancedRetains: findsUnbalancedRetains,
      callerStackStart: stackPointer &- UInt(cleak_stack_red_zone))
    snapshot.metadata.diagnosticRecords += notes
    return (snapshot, failure)
  }

  /// Now, as ISO 8601 (UTC).
  static func timestamp() -> String {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    var time = tm()
    var seconds = now.tv_sec
    gmtime_r(&seconds, &time)
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return
      "\(time.tm_year + 1900)-\(two(time.tm_mon + 1))-\(two(time.tm_mday))T\(two(time.tm_hour)):\(two(time.tm_min)):\(two(time.tm_sec))Z"
  }
}
