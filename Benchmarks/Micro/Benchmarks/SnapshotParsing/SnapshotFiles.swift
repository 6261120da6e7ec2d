import HeapGraph

/// The benchmark heap as the files `leak-detector` reads: its JSON and binary encodings.
struct SnapshotFiles: Sendable {
  /// Built on first use, once per process.
  static let benchmarkFiles = SnapshotFiles(SyntheticHeap.benchmarkHeap.snapshot)

  let snapshot: HeapSnapshot
  let json: [UInt8]
  let binary: [UInt8]

  init(_ snapshot: HeapSnapshot) {
    self.snapshot = snapshot
    json = snapshot.fileBytes(.json)
    binary = snapshot.fileBytes(.binary)
  }
}
