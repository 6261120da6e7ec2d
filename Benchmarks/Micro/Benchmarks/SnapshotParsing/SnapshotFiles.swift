import HeapGraph
import LeakBenchmarkSupport

/// The benchmark heap as the files `leak-detector` reads: its JSON and binary encodings.
struct SnapshotFiles: Sendable {
  /// The heap of the parse benchmarks, built on first use, once per process: 100,000 objects,
  /// 300,000 references, 1,000 planted cycles, 4 dense components of 12 objects (as
  /// `heap-synth --objects 100000 --references 300000 --cycles 1000`).
  static let benchmarkFiles = SnapshotFiles(
    SyntheticHeap(objects: 100_000, references: 300_000, cycles: 1_000, denseComponents: 4, denseSize: 12, tool: "micro-benchmarks")
      .snapshot)

  let snapshot: HeapSnapshot
  let json: [UInt8]
  let binary: [UInt8]

  init(_ snapshot: HeapSnapshot) {
    self.snapshot = snapshot
    json = snapshot.fileBytes(.json)
    binary = snapshot.fileBytes(.binary)
  }
}
