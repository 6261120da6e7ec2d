import Benchmark

#if canImport(Glibc)
  import Glibc
#endif

/// How long each benchmark runs, from the environment variable `LEAK_BENCH_SIZE`: `small` for CI
/// (each benchmark stops after ten iterations or so, or about two seconds), anything else, or nothing,
/// for the full size. The work of one iteration is the same at both sizes, so the same committed
/// thresholds hold for both; a small run only has fewer samples.
public enum BenchmarkSize: String, Sendable {
  case small
  case full

  /// The size `LEAK_BENCH_SIZE` asks for.
  public static var current: BenchmarkSize {
    guard let value = getenv("LEAK_BENCH_SIZE") else { return .full }
    return BenchmarkSize(rawValue: String(cString: value)) ?? .full
  }

  /// A benchmark's configuration at this size.
  ///
  /// - Parameters:
  ///   - metrics: what is measured; thresholds are committed only for the stable ones.
  ///   - scalingFactor: how many operations one iteration does, for the per-operation columns.
  ///   - fullIterations: the most iterations at the full size (a tenth of it, at least 10, when
  ///     small: the checked 90th percentile of fewer samples is their slowest, one hiccup of the
  ///     machine).
  ///   - fullSeconds: the longest a benchmark runs at the full size (two seconds when small).
  ///   - thresholds: the tolerance of each checked metric against the committed threshold.
  public func configuration(
    metrics: [BenchmarkMetric], scalingFactor: BenchmarkScalingFactor = .one, fullIterations: Int, fullSeconds: Int,
    thresholds: [BenchmarkMetric: BenchmarkThresholds]
  ) -> Benchmark.Configuration {
    Benchmark.Configuration(
      metrics: metrics,
      warmupIterations: 1,
      scalingFactor: scalingFactor,
      maxDuration: .seconds(self == .small ? 2 : fullSeconds),
      maxIterations: self == .small ? max(fullIterations / 10, 10) : fullIterations,
      thresholds: thresholds
    )
  }
}
