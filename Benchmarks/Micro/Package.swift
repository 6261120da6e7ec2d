// swift-tools-version:6.1
// Micro-benchmarks of swift-leak-detector on the ordo-one benchmark harness (formerly
// package-benchmark): `swift package benchmark` from this folder (README.md). A package of its
// own, so that the library's package does not depend on the harness.
import PackageDescription

/// A benchmark executable: its sources in `Benchmarks/<name>/`, where the harness's plugins look.
func benchmarkTarget(_ name: String, dependencies: [Target.Dependency]) -> Target {
  .executableTarget(
    name: name,
    dependencies: dependencies + ["MicroBenchmarkSupport", .product(name: "Benchmark", package: "benchmark")],
    path: "Benchmarks/\(name)",
    plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
  )
}

/// What these benchmarks share with the benchmark programs of Benchmarks/ (the synthetic heap,
/// the Mirror walk): the product of that package, since another package sees only products.
let benchmarkSupport: Target.Dependency = .product(name: "LeakBenchmarkSupport", package: "swift-leak-detector-benchmarks")

let package = Package(
  name: "swift-leak-detector-micro-benchmarks",
  dependencies: [
    // Named, so that its products are found whatever the checkout's folder is called (a path
    // dependency's identity is its folder's name).
    .package(name: "swift-leak-detector", path: "../.."),
    .package(name: "swift-leak-detector-benchmarks", path: ".."),
    // Only the malloc interposer (mallocCountTotal); the default traits would also preload a
    // Swift runtime interposer, which this project does not need.
    .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
  ],
  targets: [
    // The size knob (LEAK_BENCH_SIZE), the timing helper and the same-run ratios.
    .target(name: "MicroBenchmarkSupport", dependencies: [.product(name: "Benchmark", package: "benchmark")]),
    benchmarkTarget("AllocationTracking", dependencies: [.product(name: "LeakDetector", package: "swift-leak-detector")]),
    benchmarkTarget("ObjectReflection", dependencies: [.product(name: "LeakDetector", package: "swift-leak-detector"), benchmarkSupport]),
    benchmarkTarget("SnapshotParsing", dependencies: [.product(name: "HeapGraph", package: "swift-leak-detector"), benchmarkSupport]),
  ]
)
