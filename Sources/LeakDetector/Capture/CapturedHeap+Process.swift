import HeapGraph

extension CapturedHeap {
  /// A capture of the live heap, taken in a capture child (``CaptureProcess``): `capture` runs
  /// in the child, on the frozen heap, and takes the capture's phases from a fresh ``HeapWalk``
  /// to a ``CapturedHeap``; here its snapshot is symbolicated, and each failed attempt is added
  /// to its diagnostics. When every attempt failed, the snapshot is empty but for those
  /// diagnostics (with `metadata`), and `failure` says why (its ``CaptureFailure/diagnostic`` is
  /// the last of them).
  static func inChildProcess(
    limits: CaptureLimits, metadata: HeapSnapshot.Metadata, capture: (CaptureProcess.ProgressRecorder) -> CapturedHeap
  ) -> (heap: CapturedHeap, snapshot: HeapSnapshot, failure: CaptureFailure?) {
    _ = RuntimeReflector.shared  // created once here, not in every child
    _ = PendingDispatchWork.locations  // checked, and found with libdw, here, not in every child
    _ = RunLoopBlocks.mainRunLoop  // asked of CoreFoundation here: the call may create it
    _ = ConcurrencyLayoutCheck.mismatch  // checked with a task of its own, here, never in a child
    let outcome =
      RuntimeLayoutCheck.refusedCapture()
      ?? CaptureProcess(limits: limits).run(
        in: { progress in capture(progress).binaryBytes() },
        decode: { try CapturedHeap(binaryBytes: $0) })
    var heap =
      outcome.result ?? CapturedHeap(snapshot: HeapSnapshot.Builder(metadata: metadata).snapshot, startIDs: [], closureStackIDs: [])
    let layoutNotes = [DispatchLayoutCheck.failure, ConcurrencyLayoutCheck.failure].compactMap { $0 }.map {
      CaptureDiagnostic(kind: .layoutMismatch, message: $0)
    }
    heap.snapshot.metadata.diagnosticRecords = outcome.diagnostics + layoutNotes + heap.snapshot.metadata.diagnosticRecords
    return (heap, heap.symbolicated(), outcome.result == nil ? outcome.failure : nil)
  }
}
