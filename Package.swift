// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "swift-leak-detector",
  products: [
    .library(name: "HeapGraph", targets: ["HeapGraph"]),
    .library(name: "LeakDetector", targets: ["LeakDetector"]),
    .library(name: "LeakDetectorTesting", targets: ["LeakDetectorTesting"]),
    .executable(name: "leak-detector", targets: ["leak-detector"]),
    // Preloaded by `leak-detector run` into the program it checks (found next to the CLI).
    .library(name: "LeakDetectorAgent", type: .dynamic, targets: ["LeakDetectorAgent"]),
    .library(name: "LeakDetectorPreload", type: .dynamic, targets: ["CLeakPreload"]),
    // `swift package leak-check`: the package's tests under `leak-detector run`.
    .plugin(name: "LeakCheck", targets: ["LeakCheck"]),
    .executable(name: "leak-detector-demo", targets: ["FeedApp"]),
    // Not API: the code the benchmarks share, a product only so that Benchmarks/Micro (a package
    // of its own) can use it.
    .library(name: "_LeakBenchmarkSupport", targets: ["LeakBenchmarkSupport"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    // `swift package generate-documentation` (Scripts/docs): a build-time plugin, linked into nothing.
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
  ],
  targets: [
    // The pure core: snapshot format, graph model, cycle search, reports. No C, no runtime hooks.
    .target(name: "HeapGraph"),

    // gzip through the system's zlib (Debian's zlib1g-dev), for the heap profiles (.pb.gz) that
    // the CLI and the agent write: HeapGraph serializes a profile, they compress it.
    .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
    .target(name: "GzipCompression", dependencies: ["CZlib"]),

    // The Swift runtime's allocation entry points, declared once for the two C targets that
    // define them (the tracker's interposers and the loader's): only a header, so that the
    // loader links none of the tracker's code.
    .target(name: "CSwiftAllocationABI"),

    // The one reader of ELF build ids (of a loaded image, of a file), on the C library only:
    // the agent's runtime check and the CLI's `--version` share it.
    .target(name: "CELFBuildID"),

    // The only target that touches Swift-runtime internals and C libraries.
    .target(
      name: "CLeakRuntime",
      dependencies: ["CSwiftAllocationABI"],
      linkerSettings: [
        .linkedLibrary("swiftRemoteMirror"), .linkedLibrary("dw"), .linkedLibrary("elf"), .linkedLibrary("unwind"),
        .linkedLibrary("dl"), .linkedLibrary("m"),
      ]
    ),

    // Live-object reflection, tracking and capture (grows with the graph-builder and tracker issues).
    .target(name: "LeakDetector", dependencies: ["HeapGraph", "CLeakRuntime", "GzipCompression"]),

    // How `leak-detector run` runs a program under the tool and hears back from its agent: the
    // environment, the run directory's files, the agent's runtime policy, and the run's report.
    .target(name: "LeakDetectorRun", dependencies: ["HeapGraph"]),

    // The agent of `leak-detector run`: a small preloaded loader that decides whether a process
    // is one to check and only then loads the agent, whose Swift side tracks and captures it.
    .target(name: "CLeakPreload", dependencies: ["CSwiftAllocationABI"]),
    .target(name: "CLeakAgent", dependencies: ["CELFBuildID"]),
    .target(name: "LeakDetectorAgent", dependencies: ["LeakDetector", "HeapGraph", "LeakDetectorRun", "CLeakAgent", "GzipCompression"]),

    // XCTest and Swift Testing integrations.
    .target(name: "LeakDetectorTesting", dependencies: ["LeakDetector", "HeapGraph"]),

    // The CLI: parsing, file I/O and exit codes only.
    .executableTarget(
      name: "leak-detector",
      dependencies: [
        "HeapGraph", "LeakDetectorRun", "GzipCompression", "CELFBuildID",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),

    // `swift package leak-check` in a package that depends on this one: builds the CLI and its
    // agent in release and runs `leak-detector run -- swift test` (the tests' and the tool's
    // build share the package's scratch path).
    .plugin(
      name: "LeakCheck",
      capability: .command(
        intent: .custom(verb: "leak-check", description: "Run the package's tests under leak-detector run and report the objects they leak")
      )
    ),

    // The README's demo: a small app that leaks, found live by RetainCycleDetector.
    .executableTarget(name: "FeedApp", dependencies: ["LeakDetector"], path: "Examples/FeedApp"),

    // What the benchmarks share, here and in Benchmarks/Micro: the synthetic heap, the seeded
    // generator (the tests' too) and the Mirror walk that reflection is compared with.
    .target(name: "LeakBenchmarkSupport", dependencies: ["HeapGraph"], path: "Benchmarks/Support"),

    // Generates synthetic heap snapshots for the benchmark (not a product).
    .executableTarget(name: "heap-synth", dependencies: ["HeapGraph", "LeakBenchmarkSupport"], path: "Benchmarks/HeapSynth"),

    // Times reading a snapshot file as the tool reads it, apart from the analysis (Benchmarks/scale.py; not a product).
    .executableTarget(name: "snapshot-read-bench", dependencies: ["HeapGraph"], path: "Benchmarks/SnapshotReadBench"),

    // Allocation-tracking cost: the same loop with and without the library (not products).
    .target(name: "AllocationLoop", path: "Benchmarks/AllocationLoop"),
    .executableTarget(name: "allocation-baseline", dependencies: ["AllocationLoop"], path: "Benchmarks/AllocationBaseline"),
    .executableTarget(
      name: "allocation-bench", dependencies: ["AllocationLoop", "LeakDetector"], path: "Benchmarks/AllocationBench"),

    // What leak checks add to a test (not a product).
    .executableTarget(name: "leak-check-bench", dependencies: ["LeakDetector", "LeakDetectorTesting"], path: "Benchmarks/LeakCheckBench"),

    // Measures reflection of live objects against a Mirror walk (not a product).
    .executableTarget(
      name: "reflection-bench", dependencies: ["LeakDetector", "LeakBenchmarkSupport"], path: "Benchmarks/ReflectionBench"),

    // What one live capture costs (Benchmarks/capture-overhead.sh; not a product).
    .executableTarget(name: "capture-bench", dependencies: ["LeakDetector"], path: "Benchmarks/CaptureBench"),

    // Live capture while threads mutate, with exact object counts afterwards (Scripts/soak; not a product).
    .executableTarget(
      name: "capture-soak", dependencies: ["LeakDetector"], path: "Tests/CaptureSoak",
      swiftSettings: [.swiftLanguageMode(.v5)]),

    // Helpers shared by the test targets: a heap DSL, a seeded generator, golden files.
    .target(
      name: "LeakTestSupport", dependencies: ["HeapGraph", "LeakDetector", "LeakBenchmarkSupport", "GzipCompression", "CZlib"],
      path: "Tests/_LeakTestSupport"),

    // Types without reflection metadata, as in binaries built to hide it.
    .target(
      name: "StrippedFixtures", path: "Tests/_StrippedFixtures",
      swiftSettings: [.unsafeFlags(["-Xfrontend", "-disable-reflection-metadata"])]
    ),
    .target(name: "ThreadLocalFixture", path: "Tests/_ThreadLocalFixture"),
    .testTarget(name: "LeakDetectorTests", dependencies: ["LeakDetector", "LeakTestSupport", "StrippedFixtures", "ThreadLocalFixture"]),
    .testTarget(
      name: "LeakDetectorTestingTests", dependencies: ["LeakDetectorTesting", "HeapGraph", "LeakTestSupport"], exclude: ["__Snapshots__"]),
    .testTarget(name: "HeapGraphTests", dependencies: ["HeapGraph", "LeakTestSupport"], exclude: ["__Snapshots__"]),
    .testTarget(name: "LeakDetectorRunTests", dependencies: ["LeakDetectorRun", "HeapGraph", "LeakTestSupport", "CELFBuildID"]),
    .testTarget(name: "GzipCompressionTests", dependencies: ["GzipCompression", "HeapGraph", "LeakTestSupport"]),
    .testTarget(
      name: "LeakDetectorEndToEndTests", dependencies: ["HeapGraph", "LeakDetectorRun", "LeakTestSupport", "leak-detector", "FeedApp"],
      exclude: ["Fixtures", "__Snapshots__"]),
  ]
)
