import HeapGraph

extension LiveHeapCapture {
  /// A capture of the live heap, taken in a capture child (``CaptureProcess``): `walk` runs in
  /// the child, on the frozen heap, and adds the start objects to a fresh capture and runs it;
  /// here its snapshot is symbolicated, and each failed attempt is added to its diagnostics. When
  /// every attempt failed, the snapshot is empty but for those diagnostics, and `failure` says why.
  static func inChildProcess(
    configuration: RetainCycleDetector.Configuration, limits: CaptureLimits, metadata: HeapSnapshot.Metadata,
    walk: (inout LiveHeapCapture) -> Void
  ) -> (heap: CapturedHeap, snapshot: HeapSnapshot, failure: String?) {
    _ = RuntimeReflector.shared  // created once here, not in every child
    _ = PendingDispatchWork.locations  // found with libdw, here, not in every child
    _ = RunLoopBlocks.mainRunLoop  // asked of CoreFoundation here: the call may create it
    let outcome = CaptureProcess(limits: limits).run(
      in: { progress in
        var capture = LiveHeapCapture(configuration: configuration, progress: progress, metadata: metadata)
        walk(&capture)
        return capture.result.binaryBytes()
      },
      decode: { try CapturedHeap(binaryBytes: $0) })
    var heap = outcome.result ?? CapturedHeap(snapshot: HeapSnapshot.Builder(metadata: metadata).snapshot, startIDs: [], closureStackIDs: [])
    heap.snapshot.metadata.diagnosticRecords = outcome.diagnostics + heap.snapshot.metadata.diagnosticRecords
    let failure = outcome.result == nil ? outcome.diagnostics.last?.message : nil
    return (heap, heap.symbolicated(), failure)
  }
}
