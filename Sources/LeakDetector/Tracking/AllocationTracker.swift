import CLeakRuntime
import HeapGraph

/// Records live Swift class instances by generation, optionally with their allocation stacks:
/// the FBAllocationTracker analogue.
///
/// Tracking is automatic: this library interposes the runtime's `swift_allocObject`,
/// `swift_deallocClassInstance` and `swift_deallocPartialClassInstance`, so every class
/// instance allocated or freed through them (user code, generic classes, actors, Foundation) is
/// seen. The runtime's own `_swift_allocObject` hook pointers are never used: on Swift 6.3 they
/// crash code that uses Foundation. Where interposition is not in effect (a statically linked
/// runtime), ``mechanism`` is `.explicit` and objects are added with ``track(_:)``.
///
/// Not seen: instances of libswiftCore's own classes (array, dictionary and string storage),
/// which libswiftCore also frees internally; objects the optimizer keeps on the stack (they
/// cannot leak); closure contexts and boxes (they appear in snapshots through the objects that
/// reference them).
///
/// ```swift
/// AllocationTracker.start(.init(capturesStacks: true))
/// let generation = AllocationTracker.markGeneration()
/// showAndDismissProfileScreen()
/// print(AllocationTracker.liveCounts(inGeneration: generation))
/// ```
/// ```text
/// ["MyApp.ProfileViewModel": 1, "MyApp.ImageLoader": 1]
/// ```
public enum AllocationTracker {
  /// How tracking starts.
  public struct Configuration: Sendable, Hashable {
    /// Capture each allocation's stack, walked along frame pointers (about +10 to +20 ns per
    /// allocation).
    public var capturesStacks: Bool
    /// Capture the stack of one allocation in this many, per thread (1: every allocation).
    public var stackSamplingInterval: Int
    /// Track only a sample of the allocations, about one in every this many bytes allocated
    /// (exponentially distributed, as Go's and tcmalloc's heap profilers sample), each with its
    /// stack; the others cost a countdown on their thread. 0 (the default): track every object.
    /// ``defaultSampleInterval`` (512 KiB) is Go's rate.
    public var sampleInterval: Int

    /// Go's and tcmalloc's default sampling rate: 512 KiB.
    public static let defaultSampleInterval = 512 * 1024

    public init(capturesStacks: Bool = false, stackSamplingInterval: Int = 1, sampleInterval: Int = 0) {
      self.capturesStacks = capturesStacks || sampleInterval > 0
      self.stackSamplingInterval = sampleInterval > 0 ? 1 : max(stackSamplingInterval, 1)
      self.sampleInterval = max(sampleInterval, 0)
    }
  }

  /// How objects get into the tracker.
  public enum Mechanism: Sendable, Hashable {
    /// Every class instance, through the interposed runtime entry points.
    case interposition
    /// Only objects passed to ``AllocationTracker/track(_:)``.
    case explicit
  }

  /// Which mechanism this process has (checked by allocating a probe object).
  public static var mechanism: Mechanism {
    _ = Probe.allocate()
    return cleak_interposition_is_active() ? .interposition : .explicit
  }

  /// Starts tracking; allocations from now on are recorded in the current generation.
  public static func start(_ configuration: Configuration = Configuration()) {
    guard RuntimeLayoutCheck.mismatch == nil else { return }  // capture says why
    cleak_tracker_start_sampling(UInt64(configuration.sampleInterval))
    cleak_tracker_start(configuration.capturesStacks, UInt32(clamping: configuration.stackSamplingInterval))
  }

  /// Stops tracking and forgets every recorded object.
  public static func stop() {
    cleak_tracker_stop()
    explicitObjects.withLock { $0.removeAll() }
  }

  /// Whether tracking is running.
  public static var isRunning: Bool { cleak_tracker_is_running() }

  /// Tracks `configuration` for the duration of `body`, then stops.
  public static func withAllocationTracking<Result>(
    _ configuration: Configuration = Configuration(), _ body: () throws -> Result
  ) rethrows -> Result {
    start(configuration)
    defer { stop() }
    return try body()
  }

  /// Starts a new generation and returns its number; objects allocated from now on belong to it.
  @discardableResult
  public static func markGeneration() -> Int { Int(cleak_tracker_mark_generation()) }

  /// The generation new objects go to.
  public static var currentGeneration: Int { Int(cleak_tracker_generation()) }

  /// Records `object` in the current generation, for builds where automatic tracking is not in
  /// effect (see ``mechanism``). Harmless when it is.
  public static func track(_ object: AnyObject) {
    let address = UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
    guard let metadata = MemoryReader.readWord(at: address) else { return }
    cleak_tracker_track(address, metadata, 0)
    explicitObjects.withLock { $0[address] = WeakReference(object) }
  }

  /// The tracked objects that are alive now, optionally of one generation, without keeping them
  /// alive. Entries whose object is gone are dropped, never reported.
  public static func liveObjects(inGeneration generation: Int? = nil) -> [TrackedObject] {
    entries(inGeneration: generation).map { entry in
      TrackedObject(
        address: entry.object, typeName: RuntimeReflector.shared.className(metadata: entry.metadata) ?? "<unknown class>",
        generation: Int(entry.generation), size: Int(entry.size), stackID: entry.stack)
    }
  }

  /// The number of live tracked objects per type, optionally of one generation.
  public static func liveCounts(inGeneration generation: Int? = nil) -> [String: Int] {
    var counts: [String: Int] = [:]
    var names: [UInt: String] = [:]
    for entry in entries(inGeneration: generation) {
      let name = names[entry.metadata] ?? RuntimeReflector.shared.className(metadata: entry.metadata) ?? "<unknown class>"
      names[entry.metadata] = name
      counts[name, default: 0] += 1
    }
    return counts
  }

  /// The number of live tracked objects per generation, then per type.
  public static func generationSummary() -> [Int: [String: Int]] {
    var summary: [Int: [String: Int]] = [:]
    for object in liveObjects() { summary[object.generation, default: [:]][object.typeName, default: 0] += 1 }
    return summary
  }

  // MARK: - Internals

  /// The raw entries, validated: an entry whose memory no longer holds an object of its class
  /// (freed without a hook seeing it) is removed, and an explicitly tracked object that died is too.
  /// The addresses are only valid while nothing can free them: in a capture child, or as keys.
  static func entries(inGeneration generation: Int?) -> [cleak_tracked_object] {
    func copy(into buffer: inout [cleak_tracked_object]) -> Int {
      buffer.withUnsafeMutableBufferPointer { pointer in
        cleak_tracker_copy_entries(pointer.baseAddress, pointer.count, Int64(generation ?? -1))
      }
    }
    var buffer = [cleak_tracked_object](repeating: cleak_tracked_object(), count: cleak_tracker_count() + 1024)
    var count = copy(into: &buffer)
    while count == buffer.count {  // the table grew while copying: try again with more room
      buffer = [cleak_tracked_object](repeating: cleak_tracked_object(), count: buffer.count * 2)
      count = copy(into: &buffer)
    }
    let explicit = explicitObjects.withLock { objects -> [UInt: Bool] in
      var alive: [UInt: Bool] = [:]
      for (address, reference) in objects { alive[address] = reference.object != nil }
      objects = objects.filter { $0.value.object != nil }
      return alive
    }
    // Another thread may free (and unmap) any of these objects at any moment: the kernel reads
    // their first words, so a freed one reads as 0, or as something else, and is dropped.
    let objects = buffer[..<count].map(\.object)
    var firstWords = [UInt](repeating: 0, count: count)
    cleak_read_words_checked(objects, &firstWords, count)
    var isOwnClass: [UInt: Bool] = [:]
    return buffer[..<count].indices.filter { index in
      let entry = buffer[index]
      if explicit[entry.object] == false || firstWords[index] != entry.metadata {
        withUnsafePointer(to: entry) { cleak_tracker_forget($0) }
        return false
      }
      let own = isOwnClass[entry.metadata] ?? isDetectorClass(metadata: entry.metadata)
      isOwnClass[entry.metadata] = own
      return !own
    }.map { buffer[$0] }
  }

  /// Whether `metadata` is one of this library's own classes (its caches, created lazily while
  /// tracking runs): they are not the user's objects, so no query or snapshot lists them.
  private static func isDetectorClass(metadata: UInt) -> Bool {
    RuntimeReflector.shared.className(metadata: metadata)?.hasPrefix("LeakDetector.") == true
  }

  /// The return addresses of a tracker stack, innermost first.
  package static func programCounters(ofStack id: UInt32) -> [UInt] {
    guard id != 0 else { return [] }
    var pcs = [UInt](repeating: 0, count: 64)
    let depth = pcs.withUnsafeMutableBufferPointer { cleak_tracker_stack(id, $0.baseAddress, Int32($0.count)) }
    return Array(pcs[..<Int(depth)])
  }

  /// The frames of a tracker stack, symbolized, innermost first; empty for id 0 (no stack).
  package static func allocationStack(ofStack id: UInt32) -> [StackFrame] {
    Symbolicator.shared.frames(ofReturnAddresses: programCounters(ofStack: id))
  }

  private static let explicitObjects = Locked<[UInt: WeakReference]>([:], protectedAcrossFork: true)

  /// A tiny class whose allocation shows whether the interposer is the one called.
  private final class Probe {
    nonisolated(unsafe) static var last: Probe?

    @inline(never) static func allocate() -> Probe {
      let probe = Probe()
      last = probe  // escapes, so the optimizer cannot keep it on the stack
      return probe
    }
  }
}
