import Foundation
import LeakTestSupport
import XCTest

/// `leak-detector run` on programs as production servers are built: with the Swift runtime
/// linked in (`-static-stdlib`, optimized or not), linked with jemalloc (`-ljemalloc`), and
/// started under mimalloc (`LD_PRELOAD`). Each is checked as a program on the shared runtime is:
/// its planted cycle (`Fixtures/Run/PlantedCycle.swift`) is reported with both classes and their
/// allocation lines, also when sampling and when its leak grows over snapshots.
final class StaticRuntimeRunTests: RunFixtureTestCase {
  override class var fixtureNames: [String] { ["PlantedCycle"] }

  /// Debian's libjemalloc-dev and libmimalloc-dev install these (`Scripts/bootstrap.sh --tests`).
  private static let jemalloc = "/usr/lib/x86_64-linux-gnu/libjemalloc.so"
  private static let mimalloc = "/usr/lib/x86_64-linux-gnu/libmimalloc.so"

  /// The fixture's builds beside the plain one: with the runtime linked in (`PlantedCycleStatic`,
  /// optimized `PlantedCycleStaticOptimized`) and that with jemalloc (`PlantedCycleStaticJemalloc`,
  /// when libjemalloc-dev is installed), and the static build stripped (`PlantedCycleStripped`).
  override class func buildExtras(in directory: String) throws {
    let swiftc = try BuiltProgram.tool("swiftc")
    let source = RunFixturePrograms.sources + "/PlantedCycle.swift"
    var builds = [
      ("PlantedCycleStatic", ["-static-stdlib", "-g"]),
      ("PlantedCycleStaticOptimized", ["-static-stdlib", "-g", "-O"]),
    ]
    if FileManager.default.fileExists(atPath: jemalloc) {
      builds.append(("PlantedCycleStaticJemalloc", ["-static-stdlib", "-g", "-ljemalloc"]))
    }
    for (name, flags) in builds {
      let compile = try swiftc.run(flags + [source, "-o", directory + "/" + name])
      guard compile.status == 0 else {
        throw RunFixturePrograms.BuildFailure(description: "PlantedCycle.swift did not build as \(name):\n\(compile.standardError)")
      }
    }
    let strip = try BuiltProgram.tool("strip").run([
      directory + "/PlantedCycleStatic", "-o", directory + "/PlantedCycleStripped",
    ])
    guard strip.status == 0 else { throw RunFixturePrograms.BuildFailure(description: "strip failed:\n\(strip.standardError)") }
  }

  private func run(_ arguments: [String], environment: [String: String] = [:]) throws -> BuiltProgram.Run {
    try BuiltProgram("leak-detector").run(["run"] + arguments, environment: environment)
  }

  /// Asserts that `result` reports the planted cycles of `program`: both classes, and the lines
  /// that allocated them (in optimized code too, where the initializers are inlined frames).
  private func assertReportsThePlantedCycle(
    _ result: BuiltProgram.Run, program: String, count: Int? = 3, file: StaticString = #filePath,
    line: UInt = #line
  ) {
    let report = result.standardOutput
    XCTAssertEqual(result.status, 2, report + result.standardError, file: file, line: line)
    XCTAssertTrue(report.contains("planted\n"), report, file: file, line: line)
    XCTAssertTrue(report.contains("Checked \(program)"), report, file: file, line: line)
    XCTAssertFalse(result.standardError.contains("not checking"), result.standardError, file: file, line: line)
    let cycle = count.map { "\($0) × " } ?? ""
    XCTAssertTrue(
      report.contains("\(cycle)Owner.pet → Pet.owner → Owner") || report.contains("\(cycle)Pet.owner → Owner.pet → Pet"), report,
      file: file,
      line: line)
    let owner = "PlantedCycle.swift:26)"
    let pet = "PlantedCycle.swift:27)"
    XCTAssertTrue(report.contains("- Owner.pet  allocated at plant() (\(owner)"), report, file: file, line: line)
    XCTAssertTrue(report.contains("- Pet.owner  allocated at plant() (\(pet)"), report, file: file, line: line)
  }

  func testRun_runtimeLinkedIn_reportsTheCycleWithItsLines() throws {
    let result = try run(["--", programs + "/PlantedCycleStatic"])
    assertReportsThePlantedCycle(result, program: "PlantedCycleStatic")
  }

  func testRun_runtimeLinkedIn_optimized_reportsTheCycleWithItsLines() throws {
    let result = try run(["--", programs + "/PlantedCycleStaticOptimized"])
    assertReportsThePlantedCycle(result, program: "PlantedCycleStaticOptimized")
  }

  /// Every allocation sampled: the same report; one in about every 64 bytes: some cycle, still
  /// with its allocation lines (the sampled objects' stacks).
  func testRun_runtimeLinkedIn_sampled_reportsTheCycle() throws {
    let everything = try run(["--sample-interval", "1", "--", programs + "/PlantedCycleStatic"])
    assertReportsThePlantedCycle(everything, program: "PlantedCycleStatic")
    let sampled = try run(["--sample-interval", "16", "--", programs + "/PlantedCycleStatic", "rounds", "0.2"])
    XCTAssertEqual(sampled.status, 2, sampled.standardOutput + sampled.standardError)
    XCTAssertTrue(sampled.standardOutput.contains("allocated at plant() (PlantedCycle.swift:2"), sampled.standardOutput)
  }

  func testRun_runtimeLinkedIn_growth_namesTheGrowingCycle() throws {
    let directory = NSTemporaryDirectory() + "static-growth-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    addTeardownBlock { try? FileManager.default.removeItem(atPath: directory) }
    let result = try run([
      "--growth", "--snapshot-interval", "0.4", "--snapshot-directory", directory, "--", programs + "/PlantedCycleStatic", "rounds", "2.4",
    ])
    assertReportsThePlantedCycle(result, program: "PlantedCycleStatic", count: nil)
    let report = result.standardOutput
    XCTAssertTrue(report.contains("Growth of PlantedCycleStatic rounds 2.4 (pid "), report)
    XCTAssertTrue(report.contains("Owner: "), report)
    XCTAssertTrue(report.contains("Pet: "), report)
  }

  func testRun_runtimeLinkedIn_withJemalloc_reportsTheCycleWithItsLines() throws {
    guard FileManager.default.fileExists(atPath: Self.jemalloc) else {
      throw XCTSkip("Debian's libjemalloc-dev is not installed (\(Self.jemalloc))")
    }
    assertReportsThePlantedCycle(try run(["--", programs + "/PlantedCycleStaticJemalloc"]), program: "PlantedCycleStaticJemalloc")
    let sampled = try run(["--sample-interval", "1", "--", programs + "/PlantedCycleStaticJemalloc"])
    assertReportsThePlantedCycle(sampled, program: "PlantedCycleStaticJemalloc")
  }

  func testRun_underMimalloc_reportsTheCycleWithItsLines() throws {
    guard FileManager.default.fileExists(atPath: Self.mimalloc) else {
      throw XCTSkip("Debian's libmimalloc-dev is not installed (\(Self.mimalloc))")
    }
    let environment = ["LD_PRELOAD": Self.mimalloc]
    let shared = try run(["--", programs + "/PlantedCycle"], environment: environment)
    assertReportsThePlantedCycle(shared, program: "PlantedCycle")
    let linkedIn = try run(["--sample-interval", "1", "--", programs + "/PlantedCycleStatic"], environment: environment)
    assertReportsThePlantedCycle(linkedIn, program: "PlantedCycleStatic")
  }

  /// A stripped executable no longer names its runtime's functions: refused, saying so, and run
  /// to its end.
  func testRun_runtimeLinkedIn_stripped_isRefusedSayingWhy() throws {
    let result = try run(["--", programs + "/PlantedCycleStripped"])
    XCTAssertEqual(result.status, 1, result.standardOutput + result.standardError)
    XCTAssertEqual(result.standardOutput, "planted\n")
    let reason =
      "): it has its own copy of the Swift runtime linked in (built with --static-swift-stdlib) and its symbol table was stripped: "
      + "the agent finds that runtime's allocation functions by their symbols; check a build that keeps them (strip it after the check)\n"
    XCTAssertTrue(result.standardError.contains("leak-detector: error: not checking PlantedCycleStripped (pid "), result.standardError)
    XCTAssertEqual(result.standardError.components(separatedBy: reason).count, 3, result.standardError)
  }
}
