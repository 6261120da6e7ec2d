import Foundation
import HeapGraph
import LeakTestSupport
import XCTest

/// `leak-detector run` on a program whose tasks wait on continuations (`Fixtures/Run/Continuations.swift`):
/// the two whose continuation was dropped (unsafe and checked) are leaks, each named by where it
/// was made and where it waits, with the payload it keeps alive; the twins whose continuations a
/// global, an object, an array or a block Dispatch will run keeps, and the sleeping task, are not.
/// `analyze` of the exit snapshot finds the same two.
final class ContinuationsRunTests: RunFixtureTestCase {
  override class var fixtureNames: [String] { ["Continuations"] }

  func testRun_tasksWhoseContinuationWasDropped_areTheLeaks_withWhereTheyWereMadeAndWait() throws {
    let directory = try makeTemporaryDirectory(prefix: "continuations")
    let snapshot = directory + "/exit.json"
    let result = try BuiltProgram("leak-detector").run(["run", "--snapshot", snapshot, "--", programs + "/Continuations"])
    let report = result.standardOutput
    XCTAssertEqual(result.status, 2, report + result.standardError)
    XCTAssertTrue(report.contains("Leaks: 6 objects in 2 groups\n"), report)
    for kind in ["Unsafe", "Checked"] {
      XCTAssertTrue(
        report.contains(") 1 × Task.suspended → await in closure #1 in drop\(kind)Continuation()  (3 objects, "), report)
      #if DEBUG  // optimized, the task's closure is inlined into the program's top level
        let madeAt = kind == "Unsafe" ? 35 : 43
        XCTAssertTrue(report.contains("- Task.suspended  made at drop\(kind)Continuation() (Continuations.swift:\(madeAt))\n"), report)
      #endif
      let waitsAt = kind == "Unsafe" ? 36 : 44
      XCTAssertTrue(
        report.contains("- await in closure #1 in drop\(kind)Continuation()  waits at Continuations.swift:\(waitsAt)\n"), report)
      XCTAssertTrue(report.contains("also holds 1 × Payload, 1 × closure #1 in drop\(kind)Continuation()\n"), report)
    }
    for twin in ["keep", "sleepForAnHour"] { XCTAssertFalse(report.contains(twin), report) }
    // The runtime says so for the checked one only, when its canary is freed.
    XCTAssertTrue(result.standardError.contains("dropCheckedContinuation() leaked its continuation"), result.standardError)

    let analysis = try BuiltProgram("leak-detector").run(["analyze", snapshot])
    XCTAssertTrue(analysis.standardOutput.contains("Leaks: 6 objects unreachable from every root, in 2 groups\n"), analysis.standardOutput)
    for kind in ["Unsafe", "Checked"] {
      XCTAssertTrue(
        analysis.standardOutput.contains(") 1 × Task.suspended → await in closure #1 in drop\(kind)Continuation()  (3 objects, "),
        analysis.standardOutput)
    }
  }
}
