/// The timers scheduled on a run loop: until a timer is invalidated, its run loop keeps it, and
/// the `Timer` keeps its block (`Timer._fire`, a reflected field) and what the block captures.
/// The `Timer`s of a `RunLoop` the walk reaches are its edges, labelled `scheduled timer`; those
/// of the main run loop are roots of kind `runtime`.
///
/// ```text
/// where Foundation.Timer is held by the main run loop, until the timer is invalidated
/// ```
///
/// Where they are (CoreFoundation on Linux, read-only, ``CoreFoundationLayout``): the run loop's
/// set of modes (a `CFBasicHash`) holds each mode, whose `_timers` is a `CFArray` (a deque).
/// Each `CFRunLoopTimer` links back to its run loop, checked before anything else is read, and
/// its context's `info` is the `Timer`, which CoreFoundation does not retain: a block `Timer`
/// keeps itself alive by a retain of its own.
struct RunLoopTimers {
  /// The `Timer`s scheduled on the `CFRunLoop` at `runLoop`, in any mode, each once.
  static func timers(ofCFRunLoop runLoop: UInt, label: String) -> [RawReference] {
    typealias Layout = CoreFoundationLayout
    var seen = Set<UInt>()
    var found: [RawReference] = []
    for mode in setValues(MemoryReader.readWord(at: runLoop &+ Layout.RunLoop.modes) ?? 0) {
      for timer in arrayElements(MemoryReader.readWord(at: mode &+ Layout.RunLoopMode.timers) ?? 0) {
        guard MemoryReader.readWord(at: timer &+ Layout.RunLoopTimer.runLoop) == runLoop,
          let object = MemoryReader.readWord(at: timer &+ Layout.RunLoopTimer.info), object != 0,
          seen.insert(object).inserted
        else { continue }
        found.append(RawReference(label: label, ownership: .strong, target: object))
      }
    }
    return found
  }

  /// The values of the `CFSet` at `set`, or none when its bucket count is beyond the small
  /// tables a run loop's sets have.
  private static func setValues(_ set: UInt) -> [UInt] {
    typealias Hash = CoreFoundationLayout.BasicHash
    guard set != 0, let bits = MemoryReader.readWord(at: set &+ Hash.bits), let values = MemoryReader.readWord(at: set &+ Hash.values),
      values != 0
    else {
      return []
    }
    let sizeIndex = Int((bits >> Hash.bucketCountIndexShift) & Hash.bucketCountIndexMask)
    guard sizeIndex < Hash.bucketCounts.count else { return [] }
    return (0..<Hash.bucketCounts[sizeIndex]).compactMap { bucket in
      MemoryReader.readWord(at: values &+ wordSize &* bucket).flatMap { $0 == Hash.emptyBucket || $0 == Hash.deletedBucket ? nil : $0 }
    }
  }

  /// The elements of the mutable `CFArray` at `array`.
  private static func arrayElements(_ array: UInt) -> [UInt] {
    typealias Layout = CoreFoundationLayout.Array
    guard array != 0, let count = MemoryReader.readWord(at: array &+ Layout.count), count < 100_000,
      let deque = MemoryReader.readWord(at: array &+ Layout.store), deque != 0,
      let left = MemoryReader.readWord(at: deque &+ Layout.dequeLeftIndex),
      let capacity = MemoryReader.readWord(at: deque &+ Layout.dequeCapacity), left &+ count <= capacity
    else { return [] }
    return (0..<count).compactMap { MemoryReader.readWord(at: deque &+ Layout.dequeElements &+ wordSize &* (left &+ $0)) }
  }

  private static let wordSize = UInt(MemoryLayout<UInt>.size)
}
