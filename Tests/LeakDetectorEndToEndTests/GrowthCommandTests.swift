import Foundation
import HeapGraph
import LeakTestSupport
import XCTest

/// `leak-detector growth` on a series of snapshot files: what grew in every step, with exit
/// status 2; nothing, with 0; too few snapshots or a bad rule, exit 1 with a plain message.
final class GrowthCommandTests: XCTestCase {
  private func run(_ arguments: [String]) throws -> BuiltProgram.Run {
    try BuiltProgram("leak-detector").run(arguments)
  }

  /// A global cache with `entries` responses, each allocated at `Server.swift:12`, and `work`
  /// objects on threads' stacks.
  private func write(entries: Int, work: Int, to path: String) throws {
    var builder = HeapSnapshot.Builder()
    builder.addStack(id: 1, frames: [StackFrame(symbol: "App.Server.handle() -> ()", file: "Server.swift", line: 12)])
    builder.addObject(id: 1, type: "App.Cache", address: 0x1000, size: 32)
    builder.addRoot(object: 1, kind: .global, label: "App.Cache.shared")
    for index in 0..<entries {
      let id = Int64(10 + index)
      builder.addObject(id: id, type: "App.Response", address: UInt64(id) * 0x100, size: 48, stack: 1)
      builder.addReference(from: 1, to: id, label: "entries[\(index)]", ownership: .strong)
    }
    for index in 0..<work {
      let id = Int64(1000 + index)
      builder.addObject(id: id, type: "App.Work", address: UInt64(id) * 0x100, size: 16)
      builder.addRoot(object: id, kind: .stack, label: "thread \(index)")
    }
    try Data(builder.snapshot.jsonBytes()).write(to: URL(fileURLWithPath: path))
  }

  private func directory() throws -> String {
    let directory = NSTemporaryDirectory() + "growth-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    addTeardownBlock { try? FileManager.default.removeItem(atPath: directory) }
    return directory
  }

  func testGrowth_namesThePathThatGrewInEveryStep_andExitsWithTwo() throws {
    let directory = try directory()
    let files = (1...4).map { directory + "/s\($0).json" }
    for (index, file) in files.enumerated() { try write(entries: index + 1, work: [3, 1, 4, 2][index], to: file) }
    let result = try run(["growth"] + files)
    XCTAssertEqual(result.status, 2, result.standardError)
    XCTAssertTrue(result.standardOutput.contains("s4.json): 1 thing grew in every step"), result.standardOutput)
    XCTAssertTrue(result.standardOutput.contains("global App.Cache.shared: Cache.entries[*] → Response"), result.standardOutput)
    XCTAssertTrue(result.standardOutput.contains("added at Server.handle() (Server.swift:12): 3 objects"), result.standardOutput)
    let json = try run(["growth", "--format", "json"] + files)
    XCTAssertEqual(json.status, 2)
    XCTAssertTrue(json.standardOutput.contains(#""counts": [1, 2, 3, 4]"#), json.standardOutput)
  }

  func testGrowth_steadySeries_exitsWithZero() throws {
    let directory = try directory()
    let files = (1...3).map { directory + "/s\($0).json" }
    for file in files { try write(entries: 2, work: 1, to: file) }
    let result = try run(["growth"] + files)
    XCTAssertEqual(result.status, 0, result.standardError)
    XCTAssertTrue(result.standardOutput.contains("Nothing grew in every step over 3 snapshots"), result.standardOutput)
  }

  func testGrowth_tooFewSnapshotsOrABadRule_exitsWithOne() throws {
    let directory = try directory()
    let files = (1...3).map { directory + "/s\($0).json" }
    for file in files { try write(entries: 1, work: 0, to: file) }
    let two = try run(["growth"] + files.prefix(2))
    XCTAssertEqual(two.status, 1)
    XCTAssertTrue(two.standardError.contains("growth needs at least three snapshots"), two.standardError)
    let rule = try run(["growth", "--min-growing-steps", "3"] + files)
    XCTAssertEqual(rule.status, 1)
    XCTAssertTrue(rule.standardError.contains("--min-growing-steps must be between 1 and 2"), rule.standardError)
  }
}
