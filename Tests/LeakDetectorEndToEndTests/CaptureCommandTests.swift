import Foundation
import LeakTestSupport
import XCTest

/// `leak-detector capture PID` and core files, on a server-like fixture (`Fixtures/Run/Production.swift`)
/// built four ways: with the dynamic Swift runtime, with `-static-stdlib`, static and linked with
/// jemalloc, and dynamic under a preloaded mimalloc. Each capture must find exactly the planted
/// objects (the leaks, the cache, the waiting task; none of the 10,000 objects freed before), and
/// the process must go on running, also when the tool is killed while the process is stopped.
final class CaptureCommandTests: XCTestCase {
  /// How a fixture build is made and started.
  struct Variant {
    var name: String
    var flags: [String]
    var environment: [String: String] = [:]
  }

  static let jemalloc = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"
  static let mimalloc = "/usr/lib/x86_64-linux-gnu/libmimalloc.so.2"

  static let variants = [
    Variant(name: "dynamic", flags: []),
    Variant(name: "static", flags: ["-static-stdlib"]),
    Variant(name: "static-jemalloc", flags: ["-static-stdlib", "-Xlinker", "-ljemalloc"]),
    Variant(name: "mimalloc", flags: [], environment: ["LD_PRELOAD": mimalloc]),
  ]

  nonisolated(unsafe) private static var built: Result<String, any Error> = .failure(
    RunFixturePrograms.BuildFailure(description: "not built"))

  override class func setUp() {
    super.setUp()
    built = Result {
      let directory = FileManager.default.temporaryDirectory.appendingPathComponent("CaptureCommandTests-\(getpid())").path
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      let swiftc = try BuiltProgram.tool("swiftc")
      for variant in variants where variant.environment.isEmpty {  // mimalloc's runs the dynamic build
        let compile = try swiftc.run(
          RunFixturePrograms.optimization + ["-g"] + variant.flags
            + [RunFixturePrograms.sources + "/Production.swift", "-o", directory + "/Production-" + variant.name])
        guard compile.status == 0 else {
          throw RunFixturePrograms.BuildFailure(
            description: "Production.swift (\(variant.name)) did not compile:\n\(compile.standardError)")
        }
      }
      return directory
    }
  }

  override class func tearDown() {
    RunFixturePrograms.remove(built)
    super.tearDown()
  }

  override func setUpWithError() throws {
    try super.setUpWithError()
    for library in [Self.jemalloc, Self.mimalloc] where !FileManager.default.fileExists(atPath: library) {
      throw XCTSkip("\(library) is missing: install libjemalloc-dev and libmimalloc-dev (Scripts/bootstrap.sh --tests)")
    }
    _ = try Self.built.get()
  }

  // MARK: - Tests

  func testCapture_ofEachBuild_findsThePlantedObjectsAndLeaksOnly_andTheProcessRunsOn() throws {
    for variant in Self.variants {
      let process = try RunningFixture(variant: variant, in: try Self.built.get())
      defer { process.end() }
      let snapshot = process.directory + "/capture.json"
      let capture = try leakDetector(["capture", "\(process.processID)", "--output", snapshot])
      XCTAssertEqual(capture.status, 0, "\(variant.name): \(capture.standardError)")
      XCTAssertTrue(capture.standardError.contains("was stopped for"), "\(variant.name): \(capture.standardError)")
      try assertPlantedObjects(inSnapshotAt: snapshot, variant: variant.name)
      try assertPlantedLeaks(inSnapshotAt: snapshot, variant: variant.name)
      XCTAssertTrue(process.stopsAndExitsCleanly(), "\(variant.name): the process did not run on after the capture")
    }
  }

  func testCapture_toolKilledWhileTheProcessIsStopped_theProcessRunsOn() throws {
    let process = try RunningFixture(variant: Self.variants[0], in: try Self.built.get())
    defer { process.end() }
    var killedWhileStopped = 0
    for attempt in 0..<10 {
      let tool = Process()
      tool.executableURL = URL(fileURLWithPath: try BuiltProgram("leak-detector").path)
      tool.arguments = ["capture", "\(process.processID)", "--output", process.directory + "/killed-\(attempt).json"]
      tool.standardError = FileHandle.nullDevice
      try tool.run()
      // Killed once the process is seen stopped for tracing, or when the capture ended first.
      _ = eventually(within: .seconds(30)) { process.state == "t" || !tool.isRunning }
      kill(tool.processIdentifier, SIGKILL)
      if process.state == "t" { killedWhileStopped += 1 }
      tool.waitUntilExit()
      XCTAssertTrue(eventually(within: .seconds(10)) { process.state != "t" && process.state != "T" }, "attempt \(attempt): still stopped")
    }
    XCTAssertGreaterThan(killedWhileStopped, 0, "the tool was never killed while the process was stopped")
    XCTAssertTrue(process.stopsAndExitsCleanly(), "the process did not run on after the tool was killed")
  }

  func testAnalyze_gcoreOfTheStaticJemallocBuild_findsWhatItsCaptureFinds() throws {
    let gcore = try BuiltProgram.tool("gcore")
    let process = try RunningFixture(variant: Self.variants[2], in: try Self.built.get())
    defer { process.end() }
    let dumped = try gcore.run(["-o", process.directory + "/core", "\(process.processID)"])
    XCTAssertEqual(dumped.status, 0, dumped.standardError)
    XCTAssertTrue(process.stopsAndExitsCleanly())
    let core = process.directory + "/core.\(process.processID)"
    let snapshot = process.directory + "/core.json"
    let converted = try leakDetector(["convert", core, "--to", "json", "--output", snapshot])
    XCTAssertEqual(converted.status, 0, converted.standardError)
    try assertPlantedObjects(inSnapshotAt: snapshot, variant: "core of static-jemalloc")
    try assertPlantedLeaks(inSnapshotAt: core, variant: "core of static-jemalloc")
  }

  func testAnalyze_coreWhoseProgramMoved_readsItFromBinaries_orSaysWhatIsMissing() throws {
    let gcore = try BuiltProgram.tool("gcore")
    let built = try Self.built.get()
    let moved = built + "/moved"
    try FileManager.default.createDirectory(atPath: moved + "/bin", withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: built + "/Production-static", toPath: moved + "/Production-static")
    let process = try RunningFixture(program: moved + "/Production-static", environment: [:], in: built)
    defer { process.end() }
    XCTAssertEqual(try gcore.run(["-o", process.directory + "/core", "\(process.processID)"]).status, 0)
    XCTAssertTrue(process.stopsAndExitsCleanly())
    let core = process.directory + "/core.\(process.processID)"
    try FileManager.default.moveItem(atPath: moved + "/Production-static", toPath: moved + "/bin/Production-static")

    let found = try leakDetector(["analyze", core, "--binaries", moved + "/bin"])
    XCTAssertEqual(found.status, 2, found.standardError)  // leaks found
    XCTAssertTrue(found.standardOutput.contains("100 × Owner.pets[0] → Pet.owner → Owner"), found.standardOutput)

    let missing = try leakDetector(["analyze", core])
    XCTAssertTrue(missing.standardError.contains("Production-static"), missing.standardError)
    XCTAssertTrue(missing.standardError.contains("--binaries"), missing.standardError)
  }

  func testCapture_processUnderRunWithASnapshotSignal_isTakenByItsAgentWithStacks() throws {
    try RunFixturePrograms.skipUnderSanitizers()
    let built = try Self.built.get()
    let process = try RunningFixture(
      program: try BuiltProgram("leak-detector").path,
      arguments: ["run", "--snapshot-signal", "USR2", "--", built + "/Production-dynamic"], environment: [:], in: built)
    defer { process.end() }
    let snapshot = process.directory + "/agent.json"
    let capture = try leakDetector(["capture", "\(process.processID)", "--output", snapshot, "--to", "json"])
    XCTAssertEqual(capture.status, 0, capture.standardError)
    XCTAssertTrue(capture.standardError.contains("its agent takes the snapshot"), capture.standardError)
    let analysis = try leakDetector(["analyze", snapshot])
    XCTAssertTrue(analysis.standardOutput.contains("Production.swift:"), "no allocation line: \(analysis.standardOutput)")
  }

  func testCapture_withoutPermissionToTrace_exitsWithOneSayingWhatToGrant() throws {
    guard getuid() == 0 else { throw XCTSkip("needs root, to run the tool as another user than the process's") }
    let setpriv = try BuiltProgram.tool("setpriv")
    let process = try RunningFixture(variant: Self.variants[0], in: try Self.built.get())
    defer { process.end() }
    let capture = try setpriv.run([
      "--reuid", "65534", "--regid", "65534", "--clear-groups", try BuiltProgram("leak-detector").path, "capture", "\(process.processID)",
      "--output", FileManager.default.temporaryDirectory.path + "/never-written.heapsnapshot",
    ])
    XCTAssertEqual(capture.status, 1, capture.standardError)
    XCTAssertTrue(capture.standardError.contains("permission denied"), capture.standardError)
    XCTAssertTrue(capture.standardError.contains("CAP_SYS_PTRACE"), capture.standardError)
    XCTAssertTrue(process.stopsAndExitsCleanly())
  }

  // MARK: - Helpers

  private func leakDetector(_ arguments: [String]) throws -> BuiltProgram.Run {
    try BuiltProgram("leak-detector").run(arguments)
  }

  /// The snapshot has exactly the planted objects of each type the fixture plants, and none of
  /// the objects it freed.
  private func assertPlantedObjects(inSnapshotAt path: String, variant: String, file: StaticString = #filePath, line: UInt = #line) throws {
    let snapshot = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
    let objects = snapshot?["objects"] as? [[String: Any]] ?? []
    var counts: [String: Int] = [:]
    for object in objects { counts[(object["type"] as? String ?? "").split(separator: ".").last.map(String.init) ?? "", default: 0] += 1 }
    let expected = ["Owner": 100, "Pet": 100, "Ticker": 50, "Response": 5_000, "Cache": 1, "Discarded": 0, "Task": 1]
    for (type, count) in expected {
      XCTAssertEqual(counts[type] ?? 0, count, "\(variant): \(type)", file: file, line: line)
    }
    // The cache's responses are held by its dictionary only: no root region (a thread's TLS read
    // too far into a large malloc block mapped below it, say) holds one.
    let responses = Set(objects.filter { ($0["type"] as? String)?.hasSuffix(".Response") == true }.compactMap { $0["id"] as? Int })
    let rooted = (snapshot?["roots"] as? [[String: Any]] ?? []).filter { responses.contains($0["object"] as? Int ?? -1) }
    XCTAssertEqual(rooted.count, 0, "\(variant): responses held by roots: \(rooted.prefix(3))", file: file, line: line)
  }

  /// `analyze` finds the two planted leak groups and no other.
  private func assertPlantedLeaks(inSnapshotAt path: String, variant: String, file: StaticString = #filePath, line: UInt = #line) throws {
    let analysis = try leakDetector(["analyze", path])
    XCTAssertEqual(analysis.status, 2, "\(variant): \(analysis.standardError)", file: file, line: line)
    let report = analysis.standardOutput
    XCTAssertTrue(
      report.contains("Leaks: 250 objects unreachable from every root, in 2 groups"), "\(variant): \(report)", file: file, line: line)
    XCTAssertTrue(report.contains("100 × Owner.pets[0] → Pet.owner → Owner"), "\(variant): \(report)", file: file, line: line)
    XCTAssertTrue(report.contains("50 × Ticker.onTick → closure #1 in Ticker.start()"), "\(variant): \(report)", file: file, line: line)
    // What holds the memory: the cache, with its 5,000 responses as where it accumulates.
    XCTAssertTrue(report.contains("Top retainers:\n  1) global "), "\(variant): \(report)", file: file, line: line)
    XCTAssertTrue(report.contains("Cache.entries[*] → Response: 5,000 objects, "), "\(variant): \(report)", file: file, line: line)
  }
}

/// A fixture program started for a test: it says `ready PID` when its objects are in place and
/// runs until its stop pipe is opened.
private final class RunningFixture {
  let directory: String
  let processID: Int32
  private let process: Process

  convenience init(variant: CaptureCommandTests.Variant, in built: String) throws {
    let program = built + "/Production-" + (variant.name == "mimalloc" ? "dynamic" : variant.name)
    try self.init(program: program, environment: variant.environment, in: built)
  }

  init(program: String, arguments: [String] = [], environment: [String: String], in built: String) throws {
    directory = built + "/run-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    try RunFixturePrograms.makeStopPipe(in: directory)
    process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments + [directory]
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    process.currentDirectoryURL = URL(fileURLWithPath: directory)  // where `run` writes its snapshots
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    // `ready PID`: the pid is the program's own (under `run`, not the tool's).
    var text = ""
    while !text.contains("\n") {
      let chunk = output.fileHandleForReading.availableData
      guard !chunk.isEmpty else { break }
      text += String(decoding: chunk, as: UTF8.self)
    }
    guard let line = text.split(separator: "\n").first, line.hasPrefix("ready "), let id = Int32(line.dropFirst(6)) else {
      process.terminate()
      throw RunFixturePrograms.BuildFailure(description: "\(program) did not get ready: \(text)")
    }
    processID = id
  }

  /// The process's state letter in /proc (`S`, `R`, `t` when stopped for tracing, `T` stopped).
  var state: String {
    guard let stat = try? String(contentsOfFile: "/proc/\(processID)/stat", encoding: .utf8),
      let close = stat.lastIndex(of: ")")
    else { return "gone" }
    return String(stat[stat.index(close, offsetBy: 2)])
  }

  /// Opens the stop pipe and waits for the program to exit: whether it exited with 0.
  func stopsAndExitsCleanly() -> Bool {
    guard RunFixturePrograms.stop(in: directory) else { return false }
    process.waitUntilExit()
    return process.terminationReason == .exit && process.terminationStatus == 0
  }

  /// Ends the program if it still runs.
  func end() {
    if process.isRunning {
      kill(processID, SIGKILL)
      process.terminate()
      process.waitUntilExit()
    }
  }
}
