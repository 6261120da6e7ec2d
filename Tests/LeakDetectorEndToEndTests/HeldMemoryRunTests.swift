import Foundation
import HeapGraph
import LeakTestSupport
import XCTest

/// What holds the memory of a real program: `analyze` names a global cache's entries first, with
/// their count and the bytes they retain, beside the leaks.
final class HeldMemoryRunTests: RunFixtureTestCase {
  override class var fixtureNames: [String] { ["Cached"] }

  func testAnalyze_programWhoseBiggestConsumerIsACache_namesTheCachesPathFirst() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("held-memory-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    addTeardownBlock { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/cached.json"
    let run = try BuiltProgram("leak-detector").run(["run", "--snapshot", path, "--", programs + "/Cached"])
    XCTAssertEqual(run.status, 2, run.standardOutput + run.standardError)

    let analyze = try BuiltProgram("leak-detector").run(["analyze", path])
    let lines = analyze.standardOutput.split(separator: "\n").map(String.init)
    let heading = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("What holds the memory: ") }, analyze.standardOutput)
    let retainers = try XCTUnwrap(lines[heading...].firstIndex(of: "Top retainers:"), analyze.standardOutput)
    let first = lines[retainers + 1]
    XCTAssertTrue(first.hasPrefix("  1) global "), first)
    XCTAssertTrue(first.contains("Cache.entries[*] → Response  (1,000 objects, "), first)
    XCTAssertTrue(lines[retainers + 2].contains("allocated at Cache.fill(count:) (Cached.swift:16): 1,000 objects"), lines[retainers + 2])
    // The leaked cycles come before, as one group of 150.
    XCTAssertTrue(lines[..<heading].contains { $0.contains("150 × ") && $0.contains("Owner") }, analyze.standardOutput)

    let json = try JSONSerialization.jsonObject(
      with: Data(BuiltProgram("leak-detector").run(["analyze", path, "--format", "json"]).standardOutput.utf8))
    let held = try XCTUnwrap((json as? [String: Any])?["heldMemory"] as? [String: Any])
    let top = try XCTUnwrap((held["retainers"] as? [[String: Any]])?.first)
    XCTAssertEqual(top["objects"] as? Int, 1_000)
    // Each response retains itself and its 1 KiB body.
    let retained = try XCTUnwrap(top["retainedBytes"] as? Int)
    XCTAssertGreaterThanOrEqual(retained, 1_000 * 1_024)
    XCTAssertLessThan(retained, 1_000 * 1_200)
    XCTAssertEqual((top["path"] as? [[String: Any]])?.map { $0["type"] as? String }, ["Cached.Cache", "Cached.Response"])
    let suspects = try XCTUnwrap(held["suspects"] as? [[String: Any]])
    XCTAssertEqual(suspects.first?["kind"] as? String, "object")
    XCTAssertEqual((suspects.first?["accumulation"] as? [String: Any])?["objects"] as? Int, 1_000)
  }
}
