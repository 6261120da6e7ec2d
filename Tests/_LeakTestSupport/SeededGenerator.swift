import LeakBenchmarkSupport

/// The deterministic random number generator (SplitMix64) of the synthetic benchmark heaps, so
/// random tests replay exactly.
public typealias SeededGenerator = LeakBenchmarkSupport.SeededGenerator
