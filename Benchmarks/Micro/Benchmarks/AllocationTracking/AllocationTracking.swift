// What tracking costs per allocation: the same loop (allocate a small object, free the one it
// replaces in a ring of 256) untracked, tracked without stacks, and tracked with stacks. Each
// tracked iteration first times the same loop untracked, then tracked, so its ratio compares two
// runs made side by side. See README.md.
import Benchmark
import LeakDetector
import MicroBenchmarkSupport

/// A ring for the loop, in a process where tracking sees every allocation (otherwise the tracked
/// loops would measure nothing).
private func makeRing() throws -> AllocationRing {
  guard AllocationTracker.mechanism == .interposition else {
    throw SetupFailure("allocation tracking is not interposed in this process; the tracked loops would track nothing")
  }
  return AllocationRing()
}

let benchmarks: @Sendable () -> Void = {
  let size = BenchmarkSize.current
  // One iteration allocates 1,000 objects; the per-operation columns divide by that.
  let allocationsPerIteration = BenchmarkScalingFactor.kilo

  Benchmark(
    "untracked",
    configuration: size.configuration(
      metrics: [.wallClock, .throughput, .mallocCountTotal], scalingFactor: allocationsPerIteration,
      fullIterations: 20_000, fullSeconds: 3, thresholds: [.mallocCountTotal: .p90(within: 2)])
  ) { (benchmark: Benchmark, ring: AllocationRing) in
    ring.allocate(count: benchmark.scaledIterations.count)
  } setup: {
    try makeRing()
  }

  let trackedConfigurations = [
    ("tracked", AllocationTracker.Configuration(capturesStacks: false)),
    ("tracked-with-stacks", AllocationTracker.Configuration(capturesStacks: true)),
  ]
  for (name, tracking) in trackedConfigurations {
    let ratio = SameRunRatio(name: "\(name) / untracked time ×100")
    Benchmark(
      name,
      configuration: size.configuration(
        metrics: [.wallClock, .throughput, .mallocCountTotal, ratio.metric], scalingFactor: allocationsPerIteration,
        fullIterations: 20_000, fullSeconds: 3,
        thresholds: [.mallocCountTotal: .p90(within: 2), ratio.metric: .p90(within: 15)])
    ) { (benchmark: Benchmark, ring: AllocationRing) in
      let count = benchmark.scaledIterations.count
      let baseline = nanoseconds { ring.allocate(count: count) }
      AllocationTracker.start(tracking)
      benchmark.startMeasurement()
      let measured = nanoseconds { ring.allocate(count: count) }
      benchmark.stopMeasurement()
      AllocationTracker.stop()
      ratio.record(measured: measured, baseline: baseline, in: benchmark)
    } setup: {
      try makeRing()
    }
  }
}
