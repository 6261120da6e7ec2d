import Foundation
import LeakTestSupport
import XCTest

/// `leak-detector gate` as CI runs it: exit codes and files.
final class GateCommandTests: XCTestCase {
  private func run(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
    let run = try BuiltProgram("leak-detector").run(arguments)
    return (run.status, run.standardOutput, run.standardError)
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

    // A first baseline goes into a directory of its own, made for it.
    let nested = directory + "/Baselines/leaks.json"
    XCTAssertEqual(try run(["gate", seven, "--baseline", nested, "--update-baseline"]).status, 0)
    XCTAssertEqual(try run(["gate", seven, "--baseline", nested]).status, 0)
    let attributes = FileManager.default.attributesOfItem
    XCTAssertEqual(try attributes(directory + "/Baselines")[.posixPermissions] as? Int, 0o700)
    XCTAssertEqual(try attributes(nested)[.posixPermissions] as? Int, 0o600)

    let emptyBaseline = directory + "/empty.json"
    try #"{"formatVersion": 1, "accepted": {}}"#.write(toFile: emptyBaseline, atomically: true, encoding: .utf8)
    let new = try run(["gate", seven, "--baseline", emptyBaseline, "--format", "sarif", "--output", directory + "/leaks.sarif"])
    XCTAssertEqual(new.status, 2)
    XCTAssertTrue(new.error.contains("3 new findings"), new.error)
    let sarif = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory + "/leaks.sarif"))) as? [String: Any])
    let results = try XCTUnwrap((sarif["runs"] as? [[String: Any]])?.first?["results"] as? [[String: Any]])
    let location = try XCTUnwrap(results.compactMap { ($0["locations"] as? [[String: Any]])?.first }.first)
    let physical = try XCTUnwrap(location["physicalLocation"] as? [String: Any])
    XCTAssertEqual((physical["artifactLocation"] as? [String: Any])?["uri"] as? String, "Graph.swift")
    XCTAssertEqual((physical["region"] as? [String: Any])?["startLine"] as? Int, 12, "the allocating source line")

    // One gate, every report a CI job publishes: the text report stays on standard output.
    let reports = ["sarif": "leaks.sarif", "junit": "leaks.xml", "html": "leaks.html", "markdown": "summary.md", "json": "report.json"]
    let everyReport = try run(
      ["gate", seven, "--baseline", emptyBaseline] + reports.sorted(by: <).flatMap { ["--report", "\($0.key):\(directory)/\($0.value)"] })
    XCTAssertEqual(everyReport.status, 2)
    XCTAssertTrue(everyReport.output.contains("3 new findings"), everyReport.output)
    let written = try reports.mapValues { try String(contentsOfFile: directory + "/" + $0, encoding: .utf8) }
    XCTAssertEqual(
      try String(contentsOfFile: directory + "/leaks.sarif", encoding: .utf8).count, written["sarif"]?.count,
      "the same SARIF as --format sarif")
    XCTAssertTrue(written["junit"]?.hasPrefix("<?xml") == true)
    for name in reports.values {
      XCTAssertEqual(try attributes(directory + "/" + name)[.posixPermissions] as? Int, 0o600, name)
    }
    XCTAssertEqual(written["junit"]?.components(separatedBy: "<failure").count, 4, "one failure per new finding")
    XCTAssertTrue(written["html"]?.contains("<html") == true)
    XCTAssertTrue(written["markdown"]?.contains("3 new findings") == true, written["markdown"] ?? "")
    XCTAssertNotNil(try JSONSerialization.jsonObject(with: Data((written["json"] ?? "").utf8)))
    let unknown = try run(["gate", seven, "--baseline", emptyBaseline, "--report", "pdf:leaks.pdf"])
    XCTAssertEqual(unknown.status, 1)
    XCTAssertTrue(unknown.error.contains("--report"), unknown.error)
    let overInput = try run(["gate", seven, "--baseline", emptyBaseline, "--report", "sarif:" + seven])
    XCTAssertEqual(overInput.status, 1)
    XCTAssertTrue(overInput.error.contains("names an input"), overInput.error)

    let fixed = try run(["gate", clean, "--baseline", baseline])
    XCTAssertEqual(fixed.status, 4, fixed.output)
    XCTAssertTrue(fixed.output.contains("no longer found (fixed)"))

    try "{ not json".write(toFile: emptyBaseline, atomically: true, encoding: .utf8)
    let malformed = try run(["gate", seven, "--baseline", emptyBaseline])
    XCTAssertEqual(malformed.status, 1)
    XCTAssertEqual(
      malformed.error,
      "leak-detector: error: \(emptyBaseline): invalid JSON: expected a quoted key, found 'n' (byte 2, line 1, column 3); fix it or delete it and run with --update-baseline\n"
    )

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

  /// `gate` and `analyze` share their analysis options, so they fingerprint the same cycles: with
  /// a cap of one cycle per component, the baseline accepts exactly the cycles analyze lists.
  func testGate_maxCyclesPerComponent_acceptsTheCyclesAnalyzeLists() throws {
    let seven = LeakTestSupport.directory(of: #filePath) + "/Fixtures/fb-seven-nodes.json"
    let directory = NSTemporaryDirectory() + "gate-cap-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    func cycleKeys(_ arguments: [String]) throws -> Set<String> {
      let baseline = directory + "/\(UUID().uuidString).json"
      XCTAssertEqual(try run(["gate", seven, "--baseline", baseline, "--update-baseline"] + arguments).status, 0)
      let accepted = try XCTUnwrap(
        JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: baseline))) as? [String: Any])["accepted"]
      return Set(try XCTUnwrap(accepted as? [String: [String: String]]).filter { $0.value["kind"] == "cycle" }.keys)
    }
    func listedByAnalyze(_ arguments: [String]) throws -> Set<String> {
      let report = try run(["analyze", seven, "--format", "json"] + arguments)
      let cycles = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(report.output.utf8)) as? [String: Any])["cycles"]
      return Set(try XCTUnwrap(cycles as? [[String: Any]]).compactMap { $0["fingerprint"] as? String })
    }
    let capped = try cycleKeys(["--max-cycles-per-component", "1"])
    XCTAssertEqual(capped, try listedByAnalyze(["--max-cycles-per-component", "1"]))
    XCTAssertEqual(capped.count, 1)
    XCTAssertEqual(try cycleKeys([]), try listedByAnalyze([]))
    XCTAssertEqual(try cycleKeys([]).count, 3)
  }

  /// Every documented exit code, from the command that gives it.
  func testExitCodes_everyDocumentedStatus() throws {
    let fixtures = LeakTestSupport.directory(of: #filePath) + "/Fixtures"
    let seven = fixtures + "/fb-seven-nodes.json"
    let clean = fixtures + "/no-cycles.json"
    let directory = NSTemporaryDirectory() + "exit-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let baseline = directory + "/leaks.json"

    XCTAssertEqual(try run(["analyze", clean]).status, 0)
    XCTAssertEqual(try run(["analyze", seven]).status, 2)
    XCTAssertEqual(try run(["diff", clean, clean]).status, 0)
    XCTAssertEqual(try run(["diff", clean, seven]).status, 2, "growth")
    XCTAssertEqual(try run(["gate", seven, "--baseline", baseline]).status, 5, "no baseline yet")
    XCTAssertEqual(try run(["gate", seven, "--baseline", baseline, "--update-baseline"]).status, 0)
    XCTAssertEqual(try run(["gate", seven, "--baseline", baseline]).status, 0)
    XCTAssertEqual(try run(["gate", clean, "--baseline", baseline]).status, 4, "accepted findings are gone")
    XCTAssertEqual(try run(["gate", seven, "--baseline", baseline, "--max-cycles-per-component", "1"]).status, 4)

    // A directory is not a missing baseline: it is an input error, and nothing is replaced.
    let asDirectory = try run(["gate", seven, "--baseline", directory, "--update-baseline"])
    XCTAssertEqual(asDirectory.status, 1, asDirectory.error)
    XCTAssertTrue(asDirectory.error.contains("\(directory): is a directory"), asDirectory.error)
    XCTAssertEqual(try run(["gate", seven, "--baseline", directory]).status, 1)
    XCTAssertEqual(try run(["analyze", seven, "--max-cycles-per-component", "0"]).status, 1)
    XCTAssertEqual(try run(["diff", seven, "--max-cycle-length", "0", seven]).status, 1)
  }
}
