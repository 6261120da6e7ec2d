// What reading a heap costs, on a synthetic 100,000-object snapshot built in-process: decoding it
// from JSON and from the binary encoding, encoding it in the binary encoding, and the analysis `leak-detector analyze` runs on
// it (graph, cycles, leaks, findings). Each iteration also times a copy of as many bytes as the
// operation reads or writes, the baseline of its ratio. See README.md.
import Benchmark
import HeapGraph
import MicroBenchmarkSupport

let benchmarks: @Sendable () -> Void = {
  let size = BenchmarkSize.current

  /// A benchmark of `operation` on the benchmark heap, whose ratio is its time over the time to
  /// copy `copiedBytes` (what it reads or writes).
  func parseBenchmark(
    _ name: String, ratioName: String, copiedBytes: @escaping (SnapshotFiles) -> [UInt8],
    operation: @escaping (SnapshotFiles) throws -> Any
  ) {
    let ratio = SameRunRatio(name: ratioName)
    Benchmark(
      name,
      configuration: size.configuration(
        metrics: [.wallClock, .throughput, .mallocCountTotal, ratio.metric], fullIterations: 50, fullSeconds: 10,
        thresholds: [.mallocCountTotal: .p90(within: 2), ratio.metric: .p90(within: 40)])
    ) { (benchmark: Benchmark, fixture: ParseFixture) in
      let baseline = fixture.copyBaseline.nanosecondsToCopy(copiedBytes(fixture.files))
      var result: Any?
      benchmark.startMeasurement()
      let measured = try nanoseconds { result = try operation(fixture.files) }
      benchmark.stopMeasurement()
      blackHole(result)
      ratio.record(measured: measured, baseline: baseline, in: benchmark)
    } setup: {
      ParseFixture(files: .benchmarkFiles)
    }
  }

  parseBenchmark("decode-json", ratioName: "decode-json / copy of the JSON ×100", copiedBytes: \.json) {
    try HeapSnapshot(jsonBytes: $0.json)
  }
  parseBenchmark("decode-binary", ratioName: "decode-binary / copy of the binary ×100", copiedBytes: \.binary) {
    try HeapSnapshot(binaryBytes: $0.binary)
  }
  parseBenchmark("encode-binary", ratioName: "encode-binary / copy of the binary ×100", copiedBytes: \.binary) {
    $0.snapshot.fileBytes(.binary)
  }
  parseBenchmark("analyze", ratioName: "analyze / copy of the binary ×100", copiedBytes: \.binary) {
    HeapAnalysis(graph: ObjectGraph($0.snapshot))
  }
}
