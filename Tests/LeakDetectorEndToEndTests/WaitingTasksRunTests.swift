import Foundation
import HeapGraph
import LeakTestSupport
import XCTest

/// `leak-detector run` on a program that leaves tasks waiting (`Fixtures/Run/WaitingTasks.swift`):
/// the task that nothing can resume is a leak, named by where it was made and where it waits;
/// the one a global's continuation can resume, and the finished one, are not.
final class WaitingTasksRunTests: RunFixtureTestCase {
  override class var fixtureNames: [String] { ["WaitingTasks"] }

  func testRun_taskNothingCanResume_isTheOneLeak_withWhereItWasMadeAndWaits() throws {
    let directory = try makeTemporaryDirectory(prefix: "waiting-tasks")
    let result = try BuiltProgram("leak-detector").run(["run", "--snapshot", directory + "/exit.json", "--", programs + "/WaitingTasks"])
    let report = result.standardOutput
    XCTAssertEqual(result.status, 2, report + result.standardError)
    XCTAssertTrue(report.contains("Leaks: 6 objects in 1 group\n"), report)
    XCTAssertTrue(
      report.contains(
        "1) 1 × Task.suspended → await in closure #1 in startForgottenStream() → AsyncStream._Storage.state.continuations[0].context → Task  ("
      ), report)
    XCTAssertTrue(report.contains("- Task.suspended  made at startForgottenStream() (WaitingTasks.swift:23)\n"), report)
    XCTAssertTrue(report.contains("- await in closure #1 in startForgottenStream().async frame  waits at WaitingTasks.swift:24\n"), report)
    XCTAssertTrue(
      report.contains(
        "also holds 1 × AsyncStream<Int>._Context<>, 1 × _DequeBuffer<Int>, 1 × Counter, 1 × closure #1 in startForgottenStream()\n"),
      report)
    XCTAssertFalse(report.contains("startKeptStream"), report)
    XCTAssertFalse(report.contains("startFinishedStream"), report)
  }
}
