// How fast live objects are reflected once their types' layouts are known: warm
// `references(of:)` over 1,000 objects of five shapes, against a `Mirror` walk of the same
// objects timed in the same iteration (the speed-up is the machine-independent figure).
// See README.md.
import Benchmark
import LeakBenchmarkSupport
import LeakDetector
import MicroBenchmarkSupport

let benchmarks: @Sendable () -> Void = {
  let size = BenchmarkSize.current
  // One iteration reflects 1,000 objects; the per-operation columns are per object.
  let objectsPerIteration = BenchmarkScalingFactor.kilo
  let speedUp = SameRunRatio(name: "speed-up over Mirror ×100", polarity: .prefersLarger)

  Benchmark(
    "warm-references",
    configuration: size.configuration(
      metrics: [.wallClock, .throughput, .mallocCountTotal, speedUp.metric], scalingFactor: objectsPerIteration,
      fullIterations: 2_000, fullSeconds: 5,
      thresholds: [.mallocCountTotal: .p90(within: 2), speedUp.metric: .p90(within: 30)])
  ) { (benchmark: Benchmark, corpus: ReflectionCorpus) in
    var mirrorCount = 0
    let baseline = nanoseconds {
      for object in corpus.objects { mirrorCount += mirrorReferenceCount(of: object) }
    }
    var referenceCount = 0
    benchmark.startMeasurement()
    let measured = nanoseconds {
      for object in corpus.objects { referenceCount += references(of: object).count }
    }
    benchmark.stopMeasurement()
    blackHole((mirrorCount, referenceCount))
    speedUp.record(measured: measured, baseline: baseline, in: benchmark)
  } setup: {
    let corpus = ReflectionCorpus(count: objectsPerIteration.rawValue)
    // Warm: the reflection context and every type's layout, computed once.
    for object in corpus.objects { _ = references(of: object) }
    return corpus
  }
}
