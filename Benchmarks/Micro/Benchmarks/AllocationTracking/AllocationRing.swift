/// The allocation loop's live set: a ring of 256 objects, each new one replacing (and so freeing)
/// the one allocated 256 allocations earlier. The objects escape into the ring, so an optimized
/// build cannot put them on the stack; and a loop that frees each object at once is bimodal on
/// these machines (Documentation/RuntimeNotes.md, "Timing on these machines").
final class AllocationRing {
  private var slots = [SmallObject?](repeating: nil, count: 256)
  private var next = 0
  /// Keeps the loop's work observable.
  private(set) var checksum = 0

  /// Allocates `count` objects into the ring (each allocation frees the object it replaces once
  /// the ring is full).
  @inline(never)
  func allocate(count: Int) {
    for _ in 0..<count {
      let object = SmallObject(next)
      slots[next & 255] = object
      checksum &+= object.first
      next &+= 1
    }
  }
}
