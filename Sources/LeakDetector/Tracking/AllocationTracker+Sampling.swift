import CLeakRuntime

extension AllocationTracker {
  /// The mean distance of sampled tracking in bytes (``Configuration/sampleInterval``), 0 when
  /// every object is tracked.
  public static var sampleInterval: Int { Int(cleak_tracker_sample_interval()) }

  /// How many allocations with the stack `stackID` sampled tracking took since it started, and
  /// their bytes, freed ones included, with the class metadata of the last (`nil` when it took
  /// none, or tracks every object). A heap profile's allocated objects and space, before scaling
  /// for the sampling.
  package static func sampledAllocations(stackID: UInt32) -> (count: Int, bytes: Int, metadata: UInt)? {
    var count: UInt64 = 0
    var bytes: UInt64 = 0
    var metadata: UInt = 0
    guard cleak_tracker_sampled_totals(stackID, &count, &bytes, &metadata) else { return nil }
    return (Int(count), Int(bytes), metadata)
  }
}
