import Benchmark

/// A figure that holds from one machine to another: the time of what is measured divided by the
/// time of a baseline timed in the same iteration, ×100, recorded as a custom metric (an integer,
/// as the harness keeps them). Machines here are noisy; a ratio measured side by side is not.
///
/// ```swift
/// let overhead = SameRunRatio(name: "tracked / untracked time ×100")
/// overhead.record(measured: trackedNanoseconds, baseline: untrackedNanoseconds, in: benchmark)
/// ```
public struct SameRunRatio: Sendable {
  /// The custom metric the ratio is recorded as, unscaled (a ratio is per operation already).
  public let metric: BenchmarkMetric

  /// A ratio where smaller is better (`measured` costs more than it should when it grows), or, for
  /// a speed-up, larger is better.
  public init(name: String, polarity: BenchmarkMetric.Polarity = .prefersSmaller) {
    metric = .custom(name, polarity: polarity, useScalingFactor: false)
  }

  /// Records `measured / baseline ×100` (rounded), or for a speed-up `baseline / measured ×100`.
  public func record(measured: Int, baseline: Int, in benchmark: Benchmark) {
    guard measured > 0, baseline > 0 else { return }
    let ratio =
      metric.polarity == .prefersLarger ? Double(baseline) / Double(measured) : Double(measured) / Double(baseline)
    benchmark.measurement(metric, Int((ratio * 100).rounded()))
  }
}
