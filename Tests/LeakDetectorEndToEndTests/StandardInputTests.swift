import Foundation
import LeakTestSupport
import XCTest

/// `-` reads a snapshot from standard input, so that a capture can be piped in: the same
/// results as from the file, with messages that name standard input.
final class StandardInputTests: XCTestCase {
  private let fixtures = LeakTestSupport.directory(of: #filePath) + "/Fixtures"
  private var seven: String { fixtures + "/fb-seven-nodes.json" }
  private var clean: String { fixtures + "/no-cycles.json" }

  private func run(_ arguments: [String], piping path: String? = nil) throws -> BuiltProgram.Run {
    let input: BuiltProgram.Input = try path.map { .bytes(try Data(contentsOf: URL(fileURLWithPath: $0))) } ?? .nothing
    return try BuiltProgram("leak-detector").run(arguments, standardInput: input)
  }

  private func temporaryDirectory() throws -> String {
    let directory = NSTemporaryDirectory() + "stdin-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    addTeardownBlock { try? FileManager.default.removeItem(atPath: directory) }
    return directory
  }

  func testAnalyze_dash_readsTheSnapshotFromStandardInput() throws {
    for format in ["text", "json", "sarif"] {
      let fromFile = try run(["analyze", seven, "--format", format])
      let piped = try run(["analyze", "-", "--format", format], piping: seven)
      XCTAssertEqual(piped.status, 2, piped.standardError)
      XCTAssertEqual(piped.standardOutput, fromFile.standardOutput, format)
      XCTAssertEqual(piped.standardError, "")
    }
  }

  func testDiff_dash_isNamedStandardInput() throws {
    let result = try run(["diff", clean, "-"], piping: seven)
    XCTAssertEqual(result.status, 2, result.standardError)
    XCTAssertTrue(result.standardOutput.hasPrefix("From \(clean) to standard input:\n"), result.standardOutput)
  }

  func testGate_dash_acceptsAndThenPasses() throws {
    let baseline = try temporaryDirectory() + "/leaks.json"
    XCTAssertEqual(try run(["gate", "-", "--baseline", baseline, "--update-baseline"], piping: seven).status, 0)
    XCTAssertEqual(try run(["gate", "-", "--baseline", baseline], piping: seven).status, 0)
    XCTAssertEqual(try run(["gate", seven, "--baseline", baseline]).status, 0, "the same findings as from the file")
  }

  func testStrip_dash_writesTheSameAsFromTheFile() throws {
    let directory = try temporaryDirectory()
    XCTAssertEqual(try run(["strip", seven, "--output", directory + "/from-file.json"]).status, 0)
    XCTAssertEqual(try run(["strip", "-", "--output", directory + "/piped.json"], piping: seven).status, 0)
    XCTAssertEqual(
      try Data(contentsOf: URL(fileURLWithPath: directory + "/piped.json")),
      try Data(contentsOf: URL(fileURLWithPath: directory + "/from-file.json")))
  }

  func testAnalyze_dashWithNothingPiped_saysStandardInputIsEmpty() throws {
    let result = try run(["analyze", "-"])
    XCTAssertEqual(result.status, 1)
    XCTAssertEqual(
      result.standardError,
      "leak-detector: error: standard input: the file is empty (0 bytes): a heap snapshot is a JSON object with \"format\": \"swift-heap-snapshot\"\n"
    )
  }

  func testHelp_documentsTheDash() throws {
    for command in ["analyze", "gate", "diff", "strip"] {
      let help = try run([command, "--help"]).standardOutput
      XCTAssertTrue(help.contains("- reads"), "\(command) --help:\n\(help)")
    }
  }
}
