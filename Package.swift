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
  ],
  // The only dependency a package that depends on this one resolves. The demo, the benchmarks
  // and the capture soak are packages of their own (Examples/FeedApp, Benchmarks,
  // Benchmarks/Micro, Tests/CaptureSoak) that depend on this one by path.
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")
  ],
  targets: [
    // The pure core: snapshot format, graph model, cycle search, reports. No C, no runtime hooks.
    .target(name: "HeapGraph", dependencies: ["CPrefetch"]),
    // The processor's prefetch instruction, which Swift cannot spell: the graph walks ask for the
    // nodes they will read next.
    .target(name: "CPrefetch"),

    // gzip through the system's zlib (Debian's zlib1g-dev), for the heap profiles (.pb.gz) that
    // the CLI and the agent write: HeapGraph serializes a profile, they compress it.
    .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
    .target(name: "GzipCompression", dependencies: ["CZlib"]),

    // The Swift runtime's allocation entry points, declared once for the two C targets that
    // define them (the tracker's interposers and the loader's), and the one decision both make on
    // every call (whether it goes straight to the runtime): only headers, so that the loader
    // links none of the tracker's code.
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

    // The memory, threads and mappings of another process, read from it while it runs (stopped
    // for the copy with ptrace) or from its ELF core file: the input of `capture PID` and
    // `analyze CORE`. CProcessImage holds the system calls (ptrace, waitpid, process_vm_readv).
    .target(name: "CProcessImage"),
    .target(name: "ProcessImage", dependencies: ["CProcessImage", "HeapGraph", "CELFBuildID"]),

    // XCTest and Swift Testing integrations.
    .target(name: "LeakDetectorTesting", dependencies: ["LeakDetector", "HeapGraph"]),

    // The CLI: parsing, file I/O and exit codes; `capture` reads another process's memory
    // (ProcessImage) and finds its objects with the capture engine (LeakDetector).
    .executableTarget(
      name: "leak-detector",
      dependencies: [
        "HeapGraph", "LeakDetectorRun", "GzipCompression", "CELFBuildID", "LeakDetector", "ProcessImage",
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

    // Helpers shared by the test targets: a heap DSL, a seeded generator, golden files, the
    // programs the end-to-end tests run (the demo's, a package of its own, built on demand).
    .target(
      name: "LeakTestSupport", dependencies: ["HeapGraph", "LeakDetector", "GzipCompression", "CZlib"],
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
    .testTarget(name: "ProcessImageTests", dependencies: ["ProcessImage", "LeakTestSupport"], exclude: ["Fixtures"]),
    .testTarget(name: "GzipCompressionTests", dependencies: ["GzipCompression", "HeapGraph", "LeakTestSupport"]),
    .testTarget(
      name: "LeakDetectorEndToEndTests", dependencies: ["HeapGraph", "LeakDetectorRun", "LeakTestSupport", "leak-detector"],
      exclude: ["Fixtures", "__Snapshots__"]),
  ]
)

// `swift package generate-documentation` (Scripts/docs, which sets LEAK_DETECTOR_BUILD_DOCS=1):
// swift-docc-plugin, a command plugin linked into nothing, is a dependency only then, so that a
// package that depends on this one never resolves it.
if Context.environment["LEAK_DETECTOR_BUILD_DOCS"] != nil {
  package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"))
}
