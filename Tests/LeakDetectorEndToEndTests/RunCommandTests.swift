import Foundation
import HeapGraph
import LeakTestSupport
import XCTest

/// `leak-detector run` on real programs and a real package's tests, built here from the
/// fixtures in `Fixtures/Run` and the `Examples/Pets` package (optimized in release test runs, where
/// objects may be stack-promoted and closure contexts reshaped).
final class RunCommandTests: RunFixtureTestCase {
  override class var fixtureNames: [String] { ["Leaky", "Clean", "Roots", "Retains", "Crash", "CrashTester", "Server", "Repoint"] }

  private static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Examples").path

  private func run(_ arguments: [String], in directory: String? = nil) throws -> BuiltProgram.Run {
    try BuiltProgram("leak-detector").run(["run"] + arguments, in: directory)
  }

  func testRun_leakyProgram_reportsItsCyclesWithAllocationSitesAndPassesStreamsThrough() throws {
    let result = try run(["--", programs + "/Leaky"])
    XCTAssertEqual(result.status, 2, result.standardError)
    XCTAssertTrue(result.standardOutput.hasPrefix("to standard output\n"), result.standardOutput)
    XCTAssertTrue(result.standardError.contains("to standard error\n"), result.standardError)
    let report = result.standardOutput
    XCTAssertTrue(report.contains("Leaks: 9 objects in 2 groups"), report)
    XCTAssertTrue(report.contains("3 × Child.delegate → Parent.child → Child  (6 objects"), report)
    // Optimized code inlines the initializers: the inlined frames say the lines of the calls.
    let lines = (child: ":43)", parent: ":42)", screen: ":40)")
    XCTAssertTrue(report.contains("- Child.delegate  allocated at leak() (Leaky.swift\(lines.child)"), report)
    XCTAssertTrue(report.contains("- Parent.child  allocated at leak() (Leaky.swift\(lines.parent)"), report)
    XCTAssertTrue(report.contains("3 × Screen.onTap → closure #1 in Screen.bind().capture #0: Screen → Screen  (3 objects"), report)
    XCTAssertTrue(report.contains("- Screen.onTap  allocated at leak() (Leaky.swift\(lines.screen)"), report)
    XCTAssertFalse(report.contains("Cache"), "the cycle a global holds is not a leak:\n\(report)")
  }

  func testRun_programExitingWithAStatus_passesTheStatusThrough() throws {
    let result = try run(["--", programs + "/Leaky", "3"])
    XCTAssertEqual(result.status, 3)
    XCTAssertTrue(result.standardOutput.contains("Leaks: 9 objects in 2 groups"), result.standardOutput)
  }

  func testRun_cleanProgramUsingFoundationDispatchAndConcurrency_reportsNothing() throws {
    let result = try run(["--", programs + "/Clean"])
    XCTAssertEqual(result.status, 0, result.standardOutput + result.standardError)
    XCTAssertTrue(result.standardOutput.contains("clean\n"))
    XCTAssertTrue(result.standardOutput.contains("\nLeaks: none\n"), result.standardOutput)
    XCTAssertFalse(result.standardOutput.contains("Suppressed"), "nothing of the runtime leaked either:\n\(result.standardOutput)")
  }

  func testRun_rawPointersInGlobalsStacksAndThreadLocals_keepTheirObjectsAlive() throws {
    let directory = try temporaryDirectory()
    let result = try run(["--snapshot", directory + "/roots.json", "--", programs + "/Roots"])
    XCTAssertEqual(result.status, 2, result.standardError)
    XCTAssertTrue(result.standardOutput.contains("Leaks: 1 object in 1 group"), result.standardOutput)
    XCTAssertTrue(result.standardOutput.contains("1 × Unreferenced.me → Unreferenced"), result.standardOutput)

    let snapshot = try HeapSnapshot(jsonBytes: Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/roots.json"))))
    XCTAssertEqual(snapshot.metadata.arguments, [programs + "/Roots"], "the process's command line, as a field")
    let processID = try XCTUnwrap(snapshot.metadata.processID)
    XCTAssertEqual(snapshot.metadata.process, "Roots (pid \(processID))")
    XCTAssertNotNil(snapshot.metadata.captureMilliseconds)
    XCTAssertTrue(result.standardOutput.contains("Checked Roots (pid \(processID)): "), result.standardOutput)
    var typeByID: [Int64: String] = [:]
    for index in 0..<snapshot.objectCount { typeByID[snapshot.object(at: index).id] = snapshot.object(at: index).type }
    let roots = Set(snapshot.roots.map { "\(typeByID[$0.object] ?? "?") \($0.kind.rawValue) \($0.label ?? "")" })
    XCTAssertTrue(roots.contains("Roots.HeldByGlobal global Roots.rawGlobal"), "\(roots)")
    XCTAssertTrue(roots.contains("Roots.HeldByMainStack stack main thread"), "\(roots)")
    XCTAssertTrue(roots.contains { $0.hasPrefix("Roots.HeldByThreadLocal thread-local main thread pthread key ") }, "\(roots)")
    XCTAssertTrue(roots.contains { $0.hasPrefix("Roots.HeldByThreadStack stack thread ") }, "\(roots)")
    XCTAssertFalse(roots.contains { $0.hasPrefix("Roots.Unreferenced") }, "\(roots)")
  }

  func testRun_retainsNoPointerAccountsFor_areLeaks_pointersOutsideTheSwiftHeapKeepObjectsAlive() throws {
    let result = try run(["--", programs + "/Retains"])
    XCTAssertEqual(result.status, 2, result.standardError)
    let report = result.standardOutput
    // Optimized, a stale copy of the last dropped pointer may stay in main's frame: that one is held.
    XCTAssertTrue(report.contains(" × DroppedRetain  ("), report)
    XCTAssertTrue(report.contains("1 × RetainedSelfCycle.me → RetainedSelfCycle  (1 object"), report)
    // The pair's first object may take the memory of a string the agent read when the process
    // started, whose pointer stays in the unused tail of a live malloc block: the census counts
    // that stale word as a holder (which words of a block are garbage is not known to it), and
    // the pair is then held. Where it is not, it is a leak.
    if report.contains("RetainedPairFirst") {
      XCTAssertTrue(report.contains("1 × RetainedPairFirst.second → RetainedPairSecond.first → RetainedPairFirst  (2 objects"), report)
    }
    XCTAssertTrue(report.contains("1 × WeaklyReferenced  (1 object"), report)
    XCTAssertTrue(
      report.contains("counted as leaked (unbalanced retains, such as Unmanaged.passRetained whose pointer was dropped): "), report)
    for held in ["HeldByMallocBlock", "HeldByUnmanagedField", "HeldByInteriorPointer", "Keeper"] {
      XCTAssertFalse(report.contains(held), "\(held) is held by a pointer outside the Swift heap:\n\(report)")
    }
  }

  /// `run`'s report in colour: processes and sections bold, capture notes yellow, item numbers
  /// bold, source locations blue, fingerprints dim, a clean verdict green.
  func testRun_colorAlways_coloursTheReportByRole() throws {
    let leaky = try run(["--color", "always", "--", programs + "/Retains"]).standardOutput
    XCTAssertTrue(leaky.contains("\n\u{1B}[1mChecked Retains (pid "), leaky)
    XCTAssertTrue(leaky.contains(" s)\u{1B}[0m\n  \u{1B}[33mnote: "), leaky)
    XCTAssertTrue(leaky.contains("\n\n\u{1B}[1mLeaks: "), leaky)
    XCTAssertTrue(leaky.contains("\n" + dim("Names from Retains are written without their module.") + "\n  " + bold("1)") + " "), leaky)
    XCTAssertTrue(leaky.contains("  allocated at selfCycle() (\u{1B}[34mRetains.swift:"), leaky)
    XCTAssertTrue(leaky.contains("\n     \u{1B}[2mfingerprint "), leaky)
    let clean = try run(["--color", "always", "--", programs + "/Clean"]).standardOutput
    XCTAssertTrue(clean.hasSuffix("\n\n" + green("Leaks: none") + "\n"), clean)
  }

  func testRun_crashingProgram_passesItsSignalStatusThroughAndSaysWhy() throws {
    let result = try run(["--", programs + "/Crash"])
    XCTAssertEqual(result.status, 128 + SIGILL, result.standardError)
    XCTAssertTrue(result.standardError.contains("Fatal error: planned crash"), result.standardError)
    XCTAssertTrue(result.standardError.contains("Crash was killed by signal 4 (Illegal instruction)\n"), result.standardError)
    XCTAssertTrue(result.standardOutput.contains("Not checked Crash (pid "), result.standardOutput)
    XCTAssertTrue(
      result.standardOutput.contains(
        "): it was killed by signal 4 (Illegal instruction) before it exited, so its leaks are unknown\n\nLeaks: unknown, 1 process was not checked\n"
      ),
      result.standardOutput)
  }

  /// A crash test's child ends by the signal its test expects: the run notes it once, and is
  /// complete.
  func testRun_aChildThatACheckedProcessStarted_crashing_isNotedAndTheRunIsComplete() throws {
    let result = try run(["--", programs + "/CrashTester"])
    XCTAssertEqual(result.status, 0, result.standardOutput + result.standardError)
    XCTAssertTrue(result.standardOutput.contains("the child crashed as expected\n"), result.standardOutput)
    XCTAssertTrue(
      result.standardOutput.contains(
        "\nNot checked: 1 process that checked processes started (as a test that expects a crash does) ended before they exited, "
          + "each judged by the test that started it: 1 × signal 4 (Illegal instruction)\n\nLeaks: none\n"), result.standardOutput)
  }

  /// A test runner that crashes under `swift test` leaves the parent to exit as it likes: the
  /// crashed process is reported as not checked in every format, never as clean.
  func testRun_aCheckedChildThatCrashes_isReportedAsNotCheckedInEveryFormat() throws {
    let directory = try temporaryDirectory()
    let script = "\(programs)/Clean; \(programs)/Crash; exit 0"
    let result = try run([
      "--process", "Clean", "--process", "Crash", "--format", "json", "--output", "\(directory)/run.json", "--report",
      "sarif:\(directory)/run.sarif",
      "--report", "markdown:\(directory)/run.md", "--report", "junit:\(directory)/run.xml", "--", "/bin/sh", "-c", script,
    ])
    XCTAssertEqual(result.status, 1, "a process whose leaks are unknown is not a clean run:\n\(result.standardError)")
    XCTAssertTrue(
      result.standardOutput.contains("\nLeaks: none in the processes checked, but 1 process was not checked: its leaks are unknown\n"),
      result.standardOutput)
    XCTAssertTrue(result.standardOutput.contains("\nNot checked Crash (pid "), result.standardOutput)
    let json = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory + "/run.json"))) as? [String: Any])
    let ended = try XCTUnwrap(json["endedEarly"] as? [[String: Any]])
    XCTAssertEqual(ended.count, 1)
    XCTAssertEqual(ended.first?["signal"] as? Int, Int(SIGILL))
    XCTAssertEqual((ended.first?["description"] as? String)?.hasPrefix("Crash (pid "), true)
    XCTAssertEqual((json["processes"] as? [[String: Any]])?.count, 1, "the clean process is checked")
    let sarif = try String(contentsOfFile: directory + "/run.sarif", encoding: .utf8)
    XCTAssertTrue(sarif.contains("\"executionSuccessful\": false"), sarif)
    XCTAssertTrue(sarif.contains("was not checked: it was killed by signal 4 (Illegal instruction)"), sarif)
    let markdown = try String(contentsOfFile: directory + "/run.md", encoding: .utf8)
    XCTAssertTrue(markdown.hasPrefix("## Leak gate: incomplete\n\n**Not checked:** Crash (pid "), markdown)
    let junit = try String(contentsOfFile: directory + "/run.xml", encoding: .utf8)
    XCTAssertTrue(junit.contains("<failure message=\"process not checked\">Crash (pid "), junit)
  }

  func testRun_snapshotSignal_writesASnapshotWhileThreadsRunAndTheProgramGoesOn() throws {
    let directory = try temporaryDirectory()
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try BuiltProgram("leak-detector").path)
    process.arguments = ["run", "--snapshot-signal", "USR2", "--snapshot-directory", directory, "--", programs + "/Server", directory]
    try RunFixturePrograms.makeStopPipe(in: directory)
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    defer { if process.isRunning { process.terminate() } }
    XCTAssertTrue(eventually { FileManager.default.fileExists(atPath: directory + "/ready") }, "the server did not start")
    kill(process.processIdentifier, SIGUSR2)  // leak-detector passes it on to the program
    let written = waitForFile(in: directory, suffix: ".heapsnapshot.json")
    XCTAssertTrue(RunFixturePrograms.stop(in: directory), "the server was not waiting to be stopped")
    process.waitUntilExit()
    XCTAssertEqual(process.terminationStatus, 0)
    let path = try XCTUnwrap(written, "no snapshot was written on the signal")
    XCTAssertTrue(path.contains("/Server-"), path)
    let mode = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    XCTAssertEqual(mode, 0o600, "a snapshot holds what the program held: its owner's only")
    let snapshot = try HeapSnapshot(jsonBytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    let types = (0..<snapshot.objectCount).map { snapshot.object(at: $0).type }
    XCTAssertTrue(types.contains("Server.Request") && types.contains("Server.Response"), "\(types)")
    XCTAssertTrue(snapshot.roots.contains { $0.kind == .global }, "the signal snapshot lists roots")
  }

  /// The run directory's path is the same from run to run (SwiftPM keys its manifest cache on
  /// the environment), but each agent writes where the path led when its process started: a
  /// process that outlives its run never writes into the next run's directory.
  func testRun_pathRepointedWhileTheProgramRuns_theExitSnapshotStillReachesItsRun() throws {
    let elsewhere = try temporaryDirectory()
    let result = try run(["--", programs + "/Repoint", elsewhere])
    XCTAssertEqual(result.status, 2, result.standardError)
    XCTAssertTrue(result.standardOutput.contains("1 × Loop.next → Loop"), result.standardOutput)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere), [])
  }

  func testRun_swiftTest_reportsEachPlantedLeakWithItsTestAndNothingForCleanTests() throws {
    let package = try temporaryDirectory()
    try FileManager.default.removeItem(atPath: package)
    try FileManager.default.copyItem(atPath: Self.examples + "/Pets", toPath: package)
    let result = try run(["--", "swift", "test"], in: package)
    XCTAssertEqual(result.status, 2, result.standardError)
    let report = result.standardOutput[(result.standardOutput.range(of: "Checked ")?.lowerBound ?? result.standardOutput.startIndex)...]
    XCTAssertTrue(report.contains("Checked PetsPackageTests.xctest (pid "), String(report))
    XCTAssertTrue(report.contains("Checked PetsPackageTests.xctest --testing-library swift-testing (pid "), String(report))
    XCTAssertTrue(report.contains("Leaks: 6 objects in 2 groups"), String(report))
    // The second is held by a test case's property, which XCTest keeps until the process exits.
    XCTAssertTrue(report.contains("2 × Owner.pets[0] → Pet.owner → Owner"), String(report))
    XCTAssertTrue(
      report.contains("in tests PetsTests.XCPetsTests.testAdoptLeaks(), PetsTests.XCShelterTests.testKeptOwnerLeaks()"), String(report))
    XCTAssertTrue(report.contains("allocated at PetsTests.XCPetsTests.testAdoptLeaks() (XCPetsTests.swift:6)"), String(report))
    XCTAssertTrue(report.contains("2 × Timerish.tick → closure #1 in Timerish.start().capture #0: Timerish → Timerish"), String(report))
    XCTAssertTrue(report.contains("in tests PetsTests.asyncLeak(), PetsTests.timerLeaks()"), String(report))
    XCTAssertFalse(report.contains("Friends") || report.contains("timerWeak"), String(report))
  }

  /// Sampled tracking reaches the agent: with a distance of about a byte every allocation is
  /// sampled and the leaks are found; with one of a gigabyte, this small program has no sample.
  func testRun_sampleInterval_tracksOnlyTheSampledAllocations() throws {
    let everything = try run(["--sample-interval", "1", "--", programs + "/Leaky"])
    XCTAssertEqual(everything.status, 2, everything.standardError)
    XCTAssertTrue(everything.standardOutput.contains("Child.delegate → Parent.child → Child"), everything.standardOutput)
    let sparse = try run(["--sample-interval", "\(1 << 30)", "--", programs + "/Leaky"])
    XCTAssertEqual(sparse.status, 0, sparse.standardOutput + sparse.standardError)
    XCTAssertFalse(sparse.standardOutput.contains("Child.delegate"), sparse.standardOutput)
    let invalid = try run(["--sample-interval", "0", "--", programs + "/Leaky"])
    XCTAssertEqual(invalid.status, 1)
    XCTAssertTrue(invalid.standardError.contains("--sample-interval"), invalid.standardError)
  }

  func testRun_baseline_gatesTheLeaksAsGateDoes() throws {
    let directory = try temporaryDirectory()
    let baseline = directory + "/leaks.json"
    let missing = try run(["--baseline", baseline, "--", programs + "/Leaky"])
    XCTAssertEqual(missing.status, 5, missing.standardError)
    XCTAssertEqual(try run(["--baseline", baseline, "--update-baseline", "--", programs + "/Leaky"]).status, 0)
    let accepted = try run(["--baseline", baseline, "--", programs + "/Leaky"])
    XCTAssertEqual(accepted.status, 0, accepted.standardOutput + accepted.standardError)
    XCTAssertTrue(accepted.standardOutput.contains("No new leaks"), accepted.standardOutput)
  }

  func testRun_suppressionFile_hidesMatchingLeaksAndSaysSo() throws {
    let directory = try temporaryDirectory()
    let rules = directory + "/suppressions.txt"
    try "# known\ntype *Leaky.Screen*   # tracked upstream (the screen and its closures)\nsite Leaky.leak()*\n".write(
      toFile: rules, atomically: true, encoding: .utf8)
    let result = try run(["--suppressions", rules, "--", programs + "/Leaky"])
    XCTAssertEqual(result.status, 0, result.standardOutput)
    XCTAssertTrue(result.standardOutput.contains("\nLeaks: none\n"), result.standardOutput)
    XCTAssertTrue(
      result.standardOutput.contains("Suppressed: 2 groups (9 objects): 1 by \(rules):2, 1 by \(rules):3\n"), result.standardOutput)

    try "typo Leaky.Screen\n".write(toFile: rules, atomically: true, encoding: .utf8)
    let bad = try run(["--suppressions", rules, "--", programs + "/Leaky"])
    XCTAssertEqual(bad.status, 1)
    XCTAssertEqual(
      bad.standardError,
      "leak-detector: error: \(rules): line 1: unknown kind 'typo'; use one of type, site, stack, fingerprint\n")
  }

  /// A file the run would write into a directory that is not there fails at once, before the
  /// program runs, naming the option and the path; nothing is written.
  func testRun_destinationWithoutItsDirectory_failsBeforeTheProgramRuns() throws {
    let missing = try temporaryDirectory() + "/missing"
    for (option, prefix, file) in [
      ("--snapshot", "", "/exit.json"), ("--profile", "", "/heap.pb.gz"), ("--output", "", "/report.txt"),
      ("--report", "sarif:", "/leaks.sarif"),
    ] {
      let result = try run([option, prefix + missing + file, "--", programs + "/Leaky"])
      XCTAssertEqual(result.status, 1, option)
      XCTAssertEqual(result.standardOutput, "", "\(option): the program did not run")
      XCTAssertEqual(
        result.standardError, "leak-detector: error: \(missing + file): \(option): there is no directory \(missing); nothing was run\n")
    }
    let interval = try run(["--snapshot-interval", "1", "--snapshot-directory", missing, "--", programs + "/Leaky"])
    XCTAssertEqual(interval.status, 1)
    XCTAssertEqual(
      interval.standardError, "leak-detector: error: \(missing): --snapshot-directory: there is no directory \(missing); nothing was run\n")
    XCTAssertFalse(FileManager.default.fileExists(atPath: missing))
  }

  func testRun_noProcessMatches_exitsWithOneSayingNothingWasChecked() throws {
    let result = try run(["--process", "nothing-like-this", "--", programs + "/Leaky"])
    XCTAssertEqual(result.status, 1)
    XCTAssertTrue(result.standardError.contains("no process matched --process nothing-like-this"), result.standardError)
  }

  // MARK: - Helpers

  private func temporaryDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("run-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
    return path
  }

  private func waitForFile(in directory: String, suffix: String) -> String? {
    var found: String?
    eventually(within: .seconds(60)) {
      found = try? FileManager.default.contentsOfDirectory(atPath: directory).first { $0.hasSuffix(suffix) }
      return found != nil
    }
    return found.map { directory + "/" + $0 }
  }
}
