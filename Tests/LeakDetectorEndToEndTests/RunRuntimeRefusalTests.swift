import Foundation
import HeapGraph
import LeakDetectorRun
import LeakTestSupport
import XCTest

/// `leak-detector run` on programs whose Swift runtime the agent does not understand: one that
/// loads another build of `libswiftCore.so` than the agent's, one with no Swift at all (a program
/// with the runtime linked in is refused only when stripped: `StaticRuntimeRunTests`). The agent refuses each with why, tracks nothing,
/// and the program runs as it would have; `run` exits with 1 and the reason, or notes the refused
/// process beside the ones it checked.
final class RunRuntimeRefusalTests: RunFixtureTestCase {
  override class var fixtureNames: [String] { ["Leaky", "Clean"] }

  private func leakDetector() throws -> String { try BuiltProgram("leak-detector").path }

  func testRun_programOnAnotherBuildOfTheRuntime_isRefusedNamingBothBuilds_andRunsToItsEnd() throws {
    let runtime = try SwiftRuntimeFile.loaded()
    let directory = try temporaryDirectory()
    let copy = directory + "/libswiftCore.so"
    let changed = runtime.withAnotherBuildID()
    try changed.bytes.write(to: URL(fileURLWithPath: copy))

    // LD_LIBRARY_PATH is searched before the program's run path: it loads the copy.
    let result = try BuiltProgram.tool("env").run(["LD_LIBRARY_PATH=\(directory)", try leakDetector(), "run", "--", programs + "/Leaky"])
    XCTAssertEqual(result.status, 1, result.standardOutput + result.standardError)
    XCTAssertEqual(result.standardOutput, "to standard output\n", "the program ran to its end, and nothing was reported")
    XCTAssertTrue(result.standardError.contains("to standard error\n"), result.standardError)
    let refusal = try XCTUnwrap(
      result.standardError.split(separator: "\n").first { $0.hasPrefix("leak-detector: not checking Leaky (pid ") }, result.standardError)
    let release = "Swift \(SwiftVersion.compiler.major).\(SwiftVersion.compiler.minor)"
    XCTAssertTrue(
      refusal.contains(
        "): it runs on the Swift runtime \(copy) (\(release), build \(changed.buildID)), "
          + "another build than the one this agent was built with, "), String(refusal))
    XCTAssertTrue(refusal.contains("/libswiftCore.so (Swift \(SwiftVersion.compiler), build \(runtime.buildID)); "), String(refusal))
    XCTAssertTrue(
      refusal.hasSuffix("; build leak-detector with the toolchain that built Leaky (\(release) at \(directory))"), String(refusal))
    XCTAssertTrue(
      result.standardError.contains("leak-detector: error: " + refusal.dropFirst("leak-detector: ".count)), result.standardError)

    let failing = try BuiltProgram.tool("env").run([
      "LD_LIBRARY_PATH=\(directory)", try leakDetector(), "run", "--", programs + "/Leaky", "3",
    ])
    XCTAssertEqual(failing.status, 3, "the program's own status comes first:\n\(failing.standardError)")
    XCTAssertTrue(failing.standardError.contains("leak-detector: not checking Leaky 3 (pid "), failing.standardError)
  }

  func testRun_programWithoutSwift_isRefused() throws {
    let result = try BuiltProgram("leak-detector").run(["run", "--", try BuiltProgram.tool("true").path])
    XCTAssertEqual(result.status, 1, result.standardOutput + result.standardError)
    XCTAssertTrue(result.standardError.contains("leak-detector: error: not checking true (pid "), result.standardError)
    XCTAssertTrue(
      result.standardError.contains(
        "): it is not a Swift program (its executable neither needs the Swift runtime, libswiftCore.so, nor has Swift code); "
          + "name the Swift processes to check with --process\n"), result.standardError)
  }

  /// A shell that starts a Swift program, both matched: the program is checked, the shell is
  /// noted as refused, in the text report and the JSON one.
  func testRun_someProcessesRefused_theReportNotesThem() throws {
    let directory = try temporaryDirectory()
    let json = directory + "/run.json"
    let result = try BuiltProgram("leak-detector").run([
      "run", "--process", "sh", "--process", "Clean", "--format", "json", "--output", json, "--",
      "sh", "-c", "'\(programs)/Clean'; true",
    ])
    XCTAssertEqual(result.status, 0, result.standardOutput + result.standardError)
    let report = result.standardOutput
    XCTAssertTrue(report.contains("\nChecked Clean (pid "), report)
    XCTAssertTrue(report.contains("\nNot checked sh -c '\(programs)/Clean'; true (pid "), report)
    XCTAssertTrue(report.contains("): it is not a Swift program ("), report)
    XCTAssertTrue(report.hasSuffix("\nLeaks: none\n"), report)

    let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
    let refused = try XCTUnwrap(document["refused"] as? [[String: Any]], "\(document)")
    XCTAssertEqual(refused.count, 1)
    XCTAssertEqual((refused.first?["description"] as? String)?.hasPrefix("sh -c "), true, "\(refused)")
    XCTAssertEqual((refused.first?["reason"] as? String)?.hasPrefix("it is not a Swift program"), true, "\(refused)")
    XCTAssertEqual((document["processes"] as? [[String: Any]])?.count, 1)
  }

  private func temporaryDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("refusal-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
    return path
  }
}
