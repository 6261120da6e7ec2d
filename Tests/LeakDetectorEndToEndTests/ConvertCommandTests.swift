import Foundation
import HeapGraph
import LeakTestSupport
import XCTest

/// The binary encoding: `convert` writes it and reads it back to the same JSON, every command
/// reads it with the same results, and a damaged file is an error that names the file and the
/// place, with nothing overwritten.
final class ConvertCommandTests: XCTestCase {
  private let fixtures = LeakTestSupport.directory(of: #filePath) + "/Fixtures"
  private var seven: String { fixtures + "/fb-seven-nodes.json" }

  private func run(_ arguments: [String]) throws -> BuiltProgram.Run {
    try BuiltProgram("leak-detector").run(arguments)
  }

  private func temporaryDirectory() throws -> String {
    let directory = NSTemporaryDirectory() + "convert-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    addTeardownBlock { try? FileManager.default.removeItem(atPath: directory) }
    return directory
  }

  private func bytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
  }

  func testConvert_toBinaryAndBack_givesTheSameJSONByteForByte() throws {
    let directory = try temporaryDirectory()
    let binary = directory + "/seven.heapsnapshot"
    XCTAssertEqual(try run(["convert", seven, "--output", binary]).status, 0)
    XCTAssertEqual(Array(try bytes(binary).prefix(4)), Array("BDLS".utf8))
    XCTAssertEqual(try run(["convert", binary, "--output", directory + "/back.json"]).status, 0)
    XCTAssertEqual(try bytes(directory + "/back.json"), try HeapSnapshot(jsonBytes: try bytes(seven)).jsonBytes())
    XCTAssertEqual(try run(["convert", seven, "--to", "json", "--output", directory + "/same.json"]).status, 0)
    XCTAssertEqual(try bytes(directory + "/same.json"), try bytes(directory + "/back.json"))
  }

  func testEveryCommand_readsTheBinaryEncodingWithTheSameResults() throws {
    let directory = try temporaryDirectory()
    let binary = directory + "/seven.heapsnapshot"
    XCTAssertEqual(try run(["convert", seven, "--output", binary]).status, 0)
    for arguments in [
      ["analyze", "--format", "json"], ["analyze", "--format", "text"], ["analyze", "--format", "sarif"],
      ["analyze", "--expect-dead-generation", "1", "--format", "markdown"],
    ] {
      let fromJSON = try run(arguments + [seven])
      let fromBinary = try run(arguments + [binary])
      XCTAssertEqual(fromBinary.status, 2, fromBinary.standardError)
      XCTAssertEqual(fromBinary.standardOutput, fromJSON.standardOutput, "\(arguments)")
    }
    XCTAssertEqual(try run(["diff", seven, binary]).status, 0, "the same heap: nothing grew")
    let baseline = directory + "/leaks.json"
    XCTAssertEqual(try run(["gate", binary, "--baseline", baseline, "--update-baseline"]).status, 0)
    XCTAssertEqual(try run(["gate", seven, "--baseline", baseline]).status, 0)
    XCTAssertEqual(try run(["strip", binary, "--output", directory + "/stripped"]).status, 0)
    XCTAssertEqual(Array(try bytes(directory + "/stripped").prefix(4)), Array("BDLS".utf8), "strip keeps the encoding")
  }

  func testDamagedBinary_isAnErrorNamingTheFileAndPlace_andOverwritesNothing() throws {
    let directory = try temporaryDirectory()
    let binary = directory + "/seven.heapsnapshot"
    XCTAssertEqual(try run(["convert", seven, "--output", binary]).status, 0)
    let whole = try bytes(binary)
    let truncated = directory + "/truncated.heapsnapshot"
    try Data(whole.prefix(whole.count - 7)).write(to: URL(fileURLWithPath: truncated))
    let existing = directory + "/existing.json"
    try Data("keep me".utf8).write(to: URL(fileURLWithPath: existing))

    let result = try run(["convert", truncated, "--output", existing])
    XCTAssertEqual(result.status, 1)
    XCTAssertTrue(result.standardError.hasPrefix("leak-detector: error: \(truncated): binary snapshot: "), result.standardError)
    XCTAssertTrue(result.standardError.contains("offset"), result.standardError)
    XCTAssertEqual(try bytes(existing), Array("keep me".utf8))

    // A reference to an object that does not exist: the column and the entry are named.
    var heap = HeapSnapshot.Builder()
    heap.addObject(id: 1, type: "A")
    heap.addObject(id: 2, type: "B")
    heap.addReference(from: 1, to: 2, label: "b", ownership: .strong)
    var damaged = heap.snapshot.fileBytes(.binary)
    let targets = try XCTUnwrap(Self.offset(ofLast: [1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0], in: damaged))  // count 1, target index 1
    damaged[targets + 8] = 9
    let corrupt = directory + "/corrupt.heapsnapshot"
    try Data(damaged).write(to: URL(fileURLWithPath: corrupt))
    let analysis = try run(["analyze", corrupt])
    XCTAssertEqual(analysis.status, 1)
    XCTAssertEqual(
      analysis.standardError,
      "leak-detector: error: \(corrupt): binary snapshot: reference targets[0]: index 9 is out of range (there are 2 objects)\n")
  }

  private static func offset(ofLast pattern: [UInt8], in bytes: [UInt8]) -> Int? {
    stride(from: bytes.count - pattern.count, through: 0, by: -1).first { Array(bytes[$0..<$0 + pattern.count]) == pattern }
  }
}
