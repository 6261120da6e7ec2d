import Foundation
import LeakTestSupport
import XCTest

/// `leak-detector gate` as CI runs it: exit codes and files.
final class GateCommandTests: XCTestCase {
  private func run(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
    let testBinary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    let executable = URL(fileURLWithPath: testBinary).deletingLastPathComponent().appendingPathComponent("leak-detector")
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: outputData, as: UTF8.self), String(decoding: errorData, as: UTF8.self))
  }

  func testGate_fullCycle_missingThenAcceptedThenNewThenFixed() throws {
    let fixtures = LeakTestSupport.directory(of: #filePath) + "/Fixtures"
    let directory = NSTemporaryDirectory() + "gate-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let baseline = directory + "/leaks.json"
    let seven = fixtures + "/fb-seven-nodes.json"
    let clean = fixtures + "/no-cycles.json"

    let missing = try run(["gate", seven, "--baseline", baseline])
    XCTAssertEqual(missing.status, 5, missing.error)
    XCTAssertTrue(missing.error.contains("--update-baseline"))

    XCTAssertEqual(try run(["gate", seven, "--baseline", baseline, "--update-baseline"]).status, 0)
    XCTAssertEqual(try run(["gate", seven, "--baseline", baseline]).status, 0)

    let emptyBaseline = directory + "/empty.json"
    try #"{"formatVersion": 1, "accepted": {}}"#.write(toFile: emptyBaseline, atomically: true, encoding: .utf8)
    let new = try run(["gate", seven, "--baseline", emptyBaseline, "--format", "sarif", "--output", directory + "/leaks.sarif"])
    XCTAssertEqual(new.status, 2)
    XCTAssertTrue(new.error.contains("3 new findings"), new.error)
    let sarif = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory + "/leaks.sarif"))) as? [String: Any])
    let results = try XCTUnwrap((sarif["runs"] as? [[String: Any]])?.first?["results"] as? [[String: Any]])
    let location = try XCTUnwrap(results.compactMap { ($0["locations"] as? [[String: Any]])?.first }.first)
    let physical = try XCTUnwrap(location["physicalLocation"] as? [String: Any])
    XCTAssertEqual((physical["artifactLocation"] as? [String: Any])?["uri"] as? String, "Graph.swift")
    XCTAssertEqual((physical["region"] as? [String: Any])?["startLine"] as? Int, 12, "the allocating source line")

    let fixed = try run(["gate", clean, "--baseline", baseline])
    XCTAssertEqual(fixed.status, 4, fixed.output)
    XCTAssertTrue(fixed.output.contains("no longer found (fixed)"))

    try "{ not json".write(toFile: emptyBaseline, atomically: true, encoding: .utf8)
    let malformed = try run(["gate", seven, "--baseline", emptyBaseline])
    XCTAssertEqual(malformed.status, 1)
    XCTAssertTrue(malformed.error.contains("not a valid baseline"), malformed.error)

    let junit = try run(["gate", seven, "--baseline", baseline, "--format", "junit"])
    XCTAssertEqual(junit.status, 0)
    XCTAssertTrue(junit.output.hasPrefix("<?xml"), junit.output)
  }

  func testAnalyze_ciFormats_reportEveryFindingAsNew() throws {
    let seven = LeakTestSupport.directory(of: #filePath) + "/Fixtures/fb-seven-nodes.json"
    let sarif = try run(["analyze", seven, "--format", "sarif"])
    XCTAssertEqual(sarif.status, 2)
    let log = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(sarif.output.utf8)) as? [String: Any])
    XCTAssertEqual(((log["runs"] as? [[String: Any]])?.first?["results"] as? [Any])?.count, 3)
    let junit = try run(["analyze", seven, "--format", "junit"])
    XCTAssertTrue(junit.output.contains("failures=\"3\""), junit.output)
    let markdown = try run(["analyze", seven, "--format", "markdown"])
    XCTAssertTrue(markdown.output.contains("| new | cycle |"), markdown.output)
  }
}
