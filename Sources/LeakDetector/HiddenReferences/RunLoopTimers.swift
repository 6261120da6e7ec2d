/// The timers scheduled on a run loop: until a timer is invalidated, its run loop keeps it, and
/// the `Timer` keeps its block (`Timer._fire`, a reflected field) and what the block captures.
/// The `Timer`s of a `RunLoop` the walk reaches are its edges, labelled `scheduled timer`; those
/// of the main run loop are roots of kind `runtime`.
///
/// ```text
/// where Foundation.Timer is held by the main run loop, until the timer is invalidated
/// ```
///
/// Where they are (CoreFoundation on Linux, read-only): the run loop's set of modes (+120 of the
/// `CFRunLoop`, a `CFBasicHash`: its bucket count's index in byte 34, its values at +48) holds
/// each mode, whose `_timers` (+104) is a `CFArray` (count at +24, its deque at +48: the left
/// index, the capacity, then the elements). Each `CFRunLoopTimer` links back to its run loop
/// (+72), checked before anything else is read, and its context's `info` (+144) is the `Timer`,
/// which CoreFoundation does not retain: a block `Timer` keeps itself alive by a retain of its own.
struct RunLoopTimers {
  /// The `Timer`s scheduled on the `CFRunLoop` at `runLoop`, in any mode, each once.
  static func timers(ofCFRunLoop runLoop: UInt, label: String) -> [RawReference] {
    var seen = Set<UInt>()
    var found: [RawReference] = []
    for mode in setValues(MemoryReader.readWord(at: runLoop &+ 120) ?? 0) {
      for timer in arrayElements(MemoryReader.readWord(at: mode &+ 104) ?? 0) {
        guard MemoryReader.readWord(at: timer &+ 72) == runLoop, let object = MemoryReader.readWord(at: timer &+ 144), object != 0,
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
    guard set != 0, let bits = MemoryReader.readWord(at: set &+ 32), let values = MemoryReader.readWord(at: set &+ 48), values != 0 else {
      return []
    }
    let sizeIndex = Int((bits >> 16) & 0xFF)
    guard sizeIndex < bucketCounts.count else { return [] }
    return (0..<bucketCounts[sizeIndex]).compactMap { bucket in
      // An empty bucket holds 0, a deleted one ~0.
      MemoryReader.readWord(at: values &+ 8 &* bucket).flatMap { $0 == 0 || $0 == ~0 ? nil : $0 }
    }
  }

  /// CoreFoundation's bucket counts of hash tables, by index: the first entries of its table.
  private static let bucketCounts: [UInt] = [0, 3, 7, 13, 23, 41, 71, 127, 191, 251, 383, 631, 1087]

  /// The elements of the mutable `CFArray` at `array`.
  private static func arrayElements(_ array: UInt) -> [UInt] {
    guard array != 0, let count = MemoryReader.readWord(at: array &+ 24), count < 100_000,
      let deque = MemoryReader.readWord(at: array &+ 48), deque != 0, let left = MemoryReader.readWord(at: deque),
      let capacity = MemoryReader.readWord(at: deque &+ 8), left &+ count <= capacity
    else { return [] }
    return (0..<count).compactMap { MemoryReader.readWord(at: deque &+ 16 &+ 8 &* (left &+ $0)) }
  }
}
