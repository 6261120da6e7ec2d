import Benchmark

extension BenchmarkThresholds {
  /// How far the 90th percentile (the one `swift package benchmark thresholds check` compares
  /// with the committed value) may move, either way, in percent of the committed value.
  public static func p90(within percent: Double) -> BenchmarkThresholds {
    BenchmarkThresholds(relative: [.p90: percent])
  }
}
