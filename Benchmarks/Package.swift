// swift-tools-version:6.0
// The benchmark programs of Benchmarks/README.md (run.py, scale.py and the *.sh scripts build
// them from here), and the code they share with the micro-benchmarks of Benchmarks/Micro. A
// package of its own, so that a package that depends on swift-leak-detector carries none of it.
import PackageDescription

let heapGraph: Target.Dependency = .product(name: "HeapGraph", package: "swift-leak-detector")
let leakDetector: Target.Dependency = .product(name: "LeakDetector", package: "swift-leak-detector")

let package = Package(
  name: "swift-leak-detector-benchmarks",
  products: [
    // For Benchmarks/Micro, a package of its own too (it depends on the benchmark harness).
    .library(name: "LeakBenchmarkSupport", targets: ["LeakBenchmarkSupport"])
  ],
  dependencies: [
    // Named, so that its products are found whatever the checkout's folder is called (a path
    // dependency's identity is its folder's name).
    .package(name: "swift-leak-detector", path: "..")
  ],
  targets: [
    // What the benchmarks share, here and in Benchmarks/Micro: the synthetic heap, its seeded
    // generator and the Mirror walk that reflection is compared with.
    .target(name: "LeakBenchmarkSupport", dependencies: [heapGraph], path: "Support"),

    // Generates synthetic heap snapshots for the benchmark.
    .executableTarget(name: "heap-synth", dependencies: [heapGraph, "LeakBenchmarkSupport"], path: "HeapSynth"),

    // Times reading a snapshot file as the tool reads it, apart from the analysis (scale.py).
    .executableTarget(name: "snapshot-read-bench", dependencies: [heapGraph], path: "SnapshotReadBench"),
    // What summing what holds the memory costs beside the analysis.
    .executableTarget(name: "held-memory-bench", dependencies: [heapGraph], path: "HeldMemoryBench"),

    // Allocation-tracking cost: the same loop with and without the library.
    .target(name: "AllocationLoop", path: "AllocationLoop"),
    .executableTarget(name: "allocation-baseline", dependencies: ["AllocationLoop"], path: "AllocationBaseline"),
    .executableTarget(name: "allocation-bench", dependencies: ["AllocationLoop", leakDetector], path: "AllocationBench"),

    // What leak checks add to a test.
    .executableTarget(
      name: "leak-check-bench",
      dependencies: [leakDetector, .product(name: "LeakDetectorTesting", package: "swift-leak-detector")],
      path: "LeakCheckBench"
    ),

    // Measures reflection of live objects against a Mirror walk.
    .executableTarget(name: "reflection-bench", dependencies: [leakDetector, "LeakBenchmarkSupport"], path: "ReflectionBench"),

    // What one live capture costs (capture-overhead.sh).
    .executableTarget(name: "capture-bench", dependencies: [leakDetector], path: "CaptureBench"),
  ]
)
