import HeapGraph

// A leak check's capture, for the programs of this repository that are packages of their own and
// so see only public declarations: Benchmarks/LeakCheckBench times it, the capture soak
// (Tests/CaptureSoak) runs it while threads mutate. Not API: a program reaches these only with
// `@_spi(Internals) import LeakDetector`, and they are not in the documentation.
extension AllocationTracker {
  /// The capture a failing leak check makes for the objects it watched: `objects` and what they
  /// reference, with the program's global data scanned for the variables that hold them when
  /// `scanningGlobalData` is true (as `LeakChecker` does), or no memory scanned.
  ///
  /// - Returns: The snapshot, and why no capture attempt succeeded (the snapshot is then empty).
  @_spi(Internals)
  public static func leakCheckCapture(including objects: [AnyObject], scanningGlobalData: Bool)
    -> (snapshot: HeapSnapshot, failure: CaptureFailure?)
  {
    let heap = captureLiveHeap(including: objects, rootRegions: scanningGlobalData ? RootRegion.globalData() : [])
    return (heap.snapshot, heap.failure)
  }

  /// How many bytes of global data a leak check's capture scans: the writable segments of every
  /// loaded image.
  @_spi(Internals)
  public static var globalDataByteCount: Int {
    RootRegion.globalData().reduce(0) { $0 + Int($1.end - $1.start) }
  }
}
