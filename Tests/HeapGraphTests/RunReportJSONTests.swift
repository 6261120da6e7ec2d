import HeapGraph
import LeakTestSupport
import XCTest

/// The JSON run report: processes with their capture's duration and diagnostics (each distinct one
/// once, counted), leak groups with their entries and tests, suppressed groups with their rules,
/// and the gate's outcome when there is a baseline.
final class RunReportJSONTests: XCTestCase {
  /// A test process's exit snapshot: a leaked cycle a test allocated, a suppressed XCTest cycle,
  /// and a capture that failed the same way `failures` times before it succeeded.
  private func analysis(process: String, test: String, failures: Int) -> (process: String, isTestProcess: Bool, analysis: HeapAnalysis) {
    var metadata = HeapSnapshot.Metadata(tool: "test", process: process)
    metadata.diagnosticRecords =
      Array(
        repeating: CaptureDiagnostic(kind: .captureFailed, message: "capture attempt 1 of 3 stalled; captured again", count: 1),
        count: failures)
      + [
        CaptureDiagnostic(kind: .opaqueType, message: "Foundation.NSLock: references not visible", typeName: "Foundation.NSLock"),
        CaptureDiagnostic(kind: .opaqueType, message: "Foundation.NSLock: references not visible", typeName: "Foundation.NSLock"),
      ]
    var builder = HeapSnapshot.Builder(metadata: metadata)
    builder.addStack(
      id: 1,
      frames: [
        StackFrame(symbol: "Pets.Owner.__allocating_init() -> Pets.Owner", file: "/p/Sources/Pets/Pets.swift", line: 3),
        StackFrame(symbol: "\(test) -> ()", file: "/p/Tests/PetsTests/PetsTests.swift", line: 6),
        StackFrame(symbol: "XCTest.XCTestCase.invokeTest() -> ()"),
      ])
    builder.addObject(id: 1, type: "Pets.Owner", address: 0x1000, size: 40, stack: 1)
    builder.addObject(id: 2, type: "Pets.Pet", address: 0x2000, size: 32, stack: 1)
    builder.addReference(from: 1, to: 2, label: "pets[0]", ownership: .strong)
    builder.addReference(from: 2, to: 1, label: "owner", ownership: .strong)
    builder.addObject(id: 3, type: "XCTest.XCTestSuite", address: 0x3000, size: 64)
    builder.addObject(id: 4, type: "XCTest.XCTestSuiteRun", address: 0x4000, size: 64)
    builder.addReference(from: 3, to: 4, label: "testRun", ownership: .strong)
    builder.addReference(from: 4, to: 3, label: "test", ownership: .strong)
    return (
      process, true,
      HeapAnalysis(graph: ObjectGraph(builder.snapshot), options: .init(rootsAreComplete: true, ownCode: OwnCode(packageDirectory: "/p")))
    )
  }

  private func report() -> RunReport {
    var report = RunReport(
      analyses: [
        analysis(process: "PetsPackageTests.xctest (pid 10)", test: "PetsTests.XCPetsTests.testAdopt()", failures: 11),
        analysis(process: "PetsPackageTests.xctest --testing-library swift-testing (pid 11)", test: "PetsTests.adopt()", failures: 0),
      ], suppressions: .standard)
    report.processes[0].captureDuration = CaptureDuration(seconds: 0.4127)
    report.processes[0].processID = 10
    report.processes[1].processID = 11
    return report
  }

  func testJSONReport_golden() {
    assertMatchesGolden(report().renderJSON(exitStatus: 2), named: "run-report.json")
  }

  func testJSONReport_keepsTheGateOutcome() {
    let report = report()
    let outcome = GateOutcome(findings: report.findings, baseline: Baseline())
    assertMatchesGolden(report.renderJSON(exitStatus: 2, gate: outcome), named: "run-report-gated.json")
  }

  /// The same diagnostic repeated is one entry with its occurrences; counts are by kind.
  func testDiagnostics_areDeduplicatedAndCountedByKind() {
    let process = report().processes[0]
    XCTAssertEqual(process.distinctDiagnostics.map(\.occurrences), [11, 2])
    XCTAssertEqual(process.diagnosticCounts, ["capture-failed": 11, "opaque-type": 2])
    XCTAssertTrue(
      report().renderText().contains("\n  note: capture attempt 1 of 3 stalled; captured again (11 times)\n"), report().renderText())
  }

  /// The duration is said where a person reads it, and only when it is known.
  func testCaptureDuration_isInTheProcessLineWhenKnown() {
    let text = report().renderText()
    XCTAssertTrue(
      text.hasPrefix("Checked PetsPackageTests.xctest (pid 10): 4 objects when it exited, 4 leaked (captured in 0.41 s)\n"), text)
    XCTAssertTrue(text.contains("(pid 11): 4 objects when it exited, 4 leaked\n"), text)
    XCTAssertEqual(CaptureDuration(seconds: 2.005).description, "captured in 2.01 s")
  }
}
