import Foundation
import LeakTestSupport
import XCTest

/// `leak-detector run --growth --snapshot-interval` on a server-like program
/// (`Fixtures/Run/Growing.swift`): what it accumulates per request (cached responses, handlers,
/// tasks that never end) is named with the line that added it, and its clean twin reports
/// nothing.
final class RunGrowthTests: RunFixtureTestCase {
  override class var fixtureNames: [String] { ["Growing", "Fragmenting"] }
  private var program: String { programs + "/Growing" }
  private var fragmenting: String { programs + "/Fragmenting" }

  private func run(_ arguments: [String], interval: String = "0.4") throws -> BuiltProgram.Run {
    let directory = NSTemporaryDirectory() + "run-growth-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    addTeardownBlock { try? FileManager.default.removeItem(atPath: directory) }
    return try BuiltProgram("leak-detector").run(
      ["run", "--growth", "--snapshot-interval", interval, "--snapshot-directory", directory, "--"] + arguments)
  }

  private func run(_ mode: String) throws -> BuiltProgram.Run { try run([program, mode, "2.4"]) }

  func testRunGrowth_growingServer_namesTheCacheTheHandlersAndTheTasks_withTheirLines() throws {
    let result = try run("grow")
    XCTAssertEqual(result.status, 2, result.standardError)
    let report = result.standardOutput
    XCTAssertTrue(report.contains("Leaks: none"), report)
    XCTAssertTrue(report.contains("Growth of Growing grow 2.4 (pid "), report)
    XCTAssertTrue(report.contains("global Growing.cache: Cache.entries[*] → Response"), report)
    // Optimized code inlines the initializer: its line is the class declaration's.
    #if DEBUG
      XCTAssertTrue(report.contains("added at handle(_:growing:) (Growing.swift:30)"), report)
    #else
      XCTAssertTrue(report.contains("added at handle(_:growing:) (Growing.swift:"), report)
    #endif
    XCTAssertTrue(report.contains("added at closure #2 in handle(_:growing:) (async) (Growing.swift:34)"), "the task's line:\n\(report)")
    XCTAssertTrue(report.contains("global Growing.bus: Bus.handlers[*] → closure #1 in handle(_:growing:)"), report)
    XCTAssertTrue(report.contains("global Growing.waiters: Waiters.continuations[*]"), report)
    XCTAssertFalse(report.contains("Nothing grew"), report)
    assertNamesWhatEachHandlerAndTaskHolds(report)
  }

  /// The handler appended per request names the listener it captures, and the task started per
  /// request (found through the continuation it parks) the worker it keeps, each with its line.
  private func assertNamesWhatEachHandlerAndTaskHolds(_ report: String, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertTrue(
      report.contains("global Growing.registry: Registry.handlers[*] → closure #3 in handle(_:growing:)"), report, file: file, line: line)
    XCTAssertTrue(report.contains("     holds: Listener "), report, file: file, line: line)
    XCTAssertTrue(report.contains(", Worker ") || report.contains("holds: Worker "), report, file: file, line: line)
    XCTAssertTrue(report.contains("Task ") && report.contains("closure #2 in handle(_:growing:) "), report, file: file, line: line)
    #if DEBUG  // optimized, handle(_:growing:) is inlined into the program's top level
      XCTAssertTrue(
        report.contains("added at closure #3 in handle(_:growing:) (Growing.swift:36)"), "the closure's line:\n\(report)", file: file,
        line: line)
      XCTAssertTrue(
        report.contains("added at handle(_:growing:) (Growing.swift:35)"), "the listener's line:\n\(report)", file: file, line: line)
      XCTAssertTrue(
        report.contains("added at handle(_:growing:) (Growing.swift:34)"), "the task's and worker's line:\n\(report)", file: file,
        line: line)
    #endif
  }

  /// `leak-detector growth` on the snapshots `run` took while the program ran says the same.
  func testGrowthCommand_onTheSnapshotsOfARun_namesWhatEachHandlerAndTaskHolds() throws {
    let directory = try makeTemporaryDirectory(prefix: "run-growth-snapshots")
    let result = try BuiltProgram("leak-detector").run(
      ["run", "--growth", "--snapshot-interval", "0.4", "--snapshot-directory", directory, "--", program, "grow", "2.4"])
    XCTAssertEqual(result.status, 2, result.standardError)
    let snapshots = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }.sorted {
      $0.compare($1, options: .numeric) == .orderedAscending
    }.map { directory + "/" + $0 }
    XCTAssertGreaterThanOrEqual(snapshots.count, 3, "\(snapshots)")
    let growth = try BuiltProgram("leak-detector").run(["growth"] + snapshots)
    XCTAssertEqual(growth.status, 2, growth.standardError)
    assertNamesWhatEachHandlerAndTaskHolds(growth.standardOutput)
    let json = try BuiltProgram("leak-detector").run(["growth", "--format", "json"] + snapshots)
    XCTAssertTrue(json.standardOutput.contains(#""holds": [{"type": "Growing.Listener", "counts": ["#), json.standardOutput)
  }

  func testRunGrowth_cleanTwin_reportsNothing() throws {
    let result = try run("clean")
    XCTAssertEqual(result.status, 0, result.standardOutput + result.standardError)
    XCTAssertTrue(result.standardOutput.contains("Nothing grew in every step over "), result.standardOutput)
  }

  func testRunGrowth_withoutSnapshotsWhileRunning_isAUsageError() throws {
    let result = try BuiltProgram("leak-detector").run(["run", "--growth", "--", program, "clean", "0.1"])
    XCTAssertEqual(result.status, 1)
    XCTAssertTrue(result.standardError.contains("--growth compares the snapshots taken while the program runs"), result.standardError)
  }

  /// Resident memory that grows while the Swift objects stay: said to be fragmentation.
  func testRunGrowth_mallocMemoryFreedIntoHoles_isFragmentationNotASwiftLeak() throws {
    let result = try run([fragmenting], interval: "0.5")
    XCTAssertEqual(result.status, 0, result.standardOutput + result.standardError)
    let report = result.standardOutput
    XCTAssertTrue(report.contains("Memory per snapshot:"), report)
    XCTAssertTrue(report.contains("fragmentation, not a Swift leak"), report)
    XCTAssertTrue(report.contains("Nothing grew in every step"), report)
  }
}
