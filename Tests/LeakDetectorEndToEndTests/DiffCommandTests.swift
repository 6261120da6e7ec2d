import Foundation
import HeapGraph
import LeakTestSupport
import XCTest

/// `leak-detector diff A B` on two snapshots of a growing server (`Fixtures/Run/Growing.swift`,
/// the first and the last that `run --growth` took): the path and the type that grew, with as
/// many objects added as the snapshots themselves have more, and the line that allocated them.
final class DiffCommandTests: RunFixtureTestCase {
  override class var fixtureNames: [String] { ["Growing"] }

  func testDiff_twoSnapshotsOfAGrowingServer_namesTheGrowingPathAndTypeWithTheirDelta() throws {
    let directory = try makeTemporaryDirectory(prefix: "diff-growing")
    let run = try BuiltProgram("leak-detector").run(
      ["run", "--growth", "--snapshot-interval", "0.4", "--snapshot-directory", directory, "--", programs + "/Growing", "grow", "2.4"])
    XCTAssertEqual(run.status, 2, run.standardError)
    let snapshots = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }.sorted {
      $0.compare($1, options: .numeric) == .orderedAscending
    }.map { directory + "/" + $0 }
    XCTAssertGreaterThanOrEqual(snapshots.count, 2, "\(snapshots)")
    let (first, last) = (try XCTUnwrap(snapshots.first), try XCTUnwrap(snapshots.last))

    // What the snapshots themselves say: responses, and those the cache's entries hold (the ones
    // a thread's stack holds directly have a shorter path from that stack).
    let before = try HeapSnapshot(jsonBytes: Array(FileManager.default.contents(atPath: first) ?? Data()))
    let after = try HeapSnapshot(jsonBytes: Array(FileManager.default.contents(atPath: last) ?? Data()))
    let responseDelta = responses(in: after) - responses(in: before)
    let cachedDelta = cachedResponses(in: after) - cachedResponses(in: before)
    XCTAssertGreaterThan(responseDelta, 10, "the server handled requests between the snapshots")

    let text = try BuiltProgram("leak-detector").run(["diff", first, last])
    XCTAssertEqual(text.status, 2, "something grew: \(text.standardError)")
    let report = text.standardOutput
    XCTAssertTrue(report.contains("  grown  Response: "), report)
    XCTAssertTrue(report.contains("global Growing.cache: Cache.entries[*] → Response: "), report)
    let pathLine = try XCTUnwrap(report.split(separator: "\n").first { $0.contains("Cache.entries[*] → Response: ") }, report)
    XCTAssertTrue(pathLine.contains("(+\(cachedDelta)), bytes "), "\(pathLine) (+\(cachedDelta) in the snapshots)")
    let typeLine = try XCTUnwrap(report.split(separator: "\n").first { $0.hasPrefix("  grown  Response: ") }, report)
    XCTAssertTrue(typeLine.contains("(+\(responseDelta)), bytes "), "\(typeLine) (+\(responseDelta) in the snapshots)")
    XCTAssertTrue(report.contains("    Response: \(responseDelta) objects, "), "every new response was allocated between them:\n\(report)")
    #if DEBUG
      XCTAssertTrue(report.contains("    handle(_:growing:) (Growing.swift:30): \(responseDelta) objects, "), report)
    #endif

    let json = try BuiltProgram("leak-detector").run(["diff", first, last, "--format", "json"])
    XCTAssertEqual(json.status, 2)
    let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
    let types = try XCTUnwrap(document["types"] as? [[String: Any]])
    let response = try XCTUnwrap(types.first { $0["type"] as? String == "Growing.Response" })
    XCTAssertEqual(response["status"] as? String, "grown")
    XCTAssertEqual((response["count"] as? [String: Any])?["delta"] as? Int, responseDelta)
    XCTAssertEqual(types.first?["type"] as? String, "Growing.Response", "the most bytes added first")
    let paths = try XCTUnwrap(document["paths"] as? [[String: Any]])
    let cachePath = try XCTUnwrap(
      paths.first { $0["path"] as? String == "global Growing.cache: Growing.Cache.entries[*] -> Growing.Response" })
    XCTAssertEqual((cachePath["count"] as? [String: Any])?["delta"] as? Int, cachedDelta)
    XCTAssertEqual(paths.first?["path"] as? String, cachePath["path"] as? String, "the most objects added first")

    // The page names the same growth (Tests/Browser/test_diff.py clicks through such a page).
    let page = directory + "/diff.html"
    let html = try BuiltProgram("leak-detector").run(["diff", first, last, "--format", "html", "--output", page])
    XCTAssertEqual(html.status, 2, html.standardError)
    let markup = try String(contentsOfFile: page, encoding: .utf8)
    XCTAssertTrue(markup.contains("global Growing.cache: Cache.entries[*] → Response"), "the growing path in the page")
    XCTAssertTrue(markup.contains(">+\(cachedDelta)<"), "the path's delta in the page: +\(cachedDelta)")
  }

  private func responses(in snapshot: HeapSnapshot) -> Int { snapshot.objects.count { $0.type == "Growing.Response" } }

  /// The responses the cache's `entries` hold that no root holds directly.
  private func cachedResponses(in snapshot: HeapSnapshot) -> Int {
    let cache = snapshot.roots.first { $0.label == "Growing.cache" }?.object
    let rooted = Set(snapshot.roots.map(\.object))
    let responses = Set(snapshot.objects.filter { $0.type == "Growing.Response" }.map(\.id))
    return Set(
      snapshot.references.filter { $0.from == cache && $0.label?.hasPrefix("entries[") == true && $0.ownership == .strong }.map(\.to)
    ).filter { responses.contains($0) && !rooted.contains($0) }.count
  }
}
