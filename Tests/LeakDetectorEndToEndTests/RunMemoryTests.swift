import Foundation
import HeapGraph
import LeakTestSupport
import XCTest

/// What `leak-detector run` records of a program's memory at its exit capture: malloc's free
/// bytes in its arenas, RSS and the Swift objects side by side, so that memory freed but kept by
/// malloc is told apart from Swift objects.
final class RunMemoryTests: RunFixtureTestCase {
  override class var fixtureNames: [String] { ["Fragmented"] }

  func testRun_programThatFreedItsMallocMemory_recordsItFreeInTheArenasWithFewSwiftObjects() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("run-memory-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    addTeardownBlock { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/fragmented.json"
    let run = try BuiltProgram("leak-detector").run(["run", "--snapshot", path, "--", programs + "/Fragmented"])
    XCTAssertEqual(run.status, 0, run.standardOutput + run.standardError)
    XCTAssertTrue(run.standardOutput.contains("freed 102399 blocks"), run.standardOutput)

    let snapshot = try HeapSnapshot(jsonBytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    let memory = try XCTUnwrap(snapshot.metadata.memory, "the exit snapshot records the memory")
    let megabyte = 1 << 20
    XCTAssertGreaterThanOrEqual(try XCTUnwrap(memory.mallocFreeInArenas), 150 * megabyte, "\(memory)")
    XCTAssertGreaterThanOrEqual(try XCTUnwrap(memory.residentBytes), 150 * megabyte, "the freed pages stay resident: \(memory)")
    XCTAssertLessThan(try XCTUnwrap(memory.mallocInUse), 100 * megabyte, "\(memory)")
    XCTAssertEqual(memory.swiftObjectCount, snapshot.objectCount)
    XCTAssertLessThan(try XCTUnwrap(memory.swiftObjectCount), 1_000, "\(memory)")
    XCTAssertLessThan(try XCTUnwrap(memory.swiftObjectBytes), megabyte, "\(memory)")

    let analyze = try BuiltProgram("leak-detector").run(["analyze", path])
    let header = analyze.standardOutput.split(separator: "\n").prefix(4)
    XCTAssertTrue(header.contains { $0.hasPrefix("Memory at capture: RSS ") && $0.contains(" free in ") }, analyze.standardOutput)
  }
}
