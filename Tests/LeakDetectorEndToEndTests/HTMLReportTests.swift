import Foundation
import HeapGraph
import LeakTestSupport
import XCTest

/// `--format html` rendered by a real browser: headless Chromium loads the report (its script
/// runs), and the test reads the DOM it built and takes a screenshot.
final class HTMLReportTests: XCTestCase {
  private var fixtures: String { directory() + "/Fixtures" }

  /// The DOM of `file` after Chromium loaded it (scripts run), at `fragment`.
  private func renderedDOM(_ file: String, fragment: String = "") throws -> String {
    let result = try BuiltProgram.tool("chromium").run(
      ["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", "file://" + file + fragment])
    XCTAssertEqual(result.status, 0, result.standardError)
    return result.standardOutput
  }

  private func report(_ arguments: [String]) throws -> String {
    let path = NSTemporaryDirectory() + "leak-report-\(UUID().uuidString).html"
    let result = try BuiltProgram("leak-detector").run(arguments + ["--format", "html", "--output", path])
    XCTAssertEqual(result.status, 2, result.standardError)
    XCTAssertEqual(result.standardOutput, "", "the report goes to the file")
    return path
  }

  private func occurrences(of needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

  /// The demo's real capture: four cycles drawn, each with its objects and sites.
  func testAnalyzeHTML_demoCapture_drawsEveryCycleInChromium() throws {
    let snapshot = NSTemporaryDirectory() + "feed-app-\(UUID().uuidString).json"
    defer { try? FileManager.default.removeItem(atPath: snapshot) }
    XCTAssertEqual(try FeedAppDemo.program().run([snapshot]).status, 0)
    let html = try report(["analyze", snapshot, "--layout", "built-in"])
    defer { try? FileManager.default.removeItem(atPath: html) }
    let source = try String(contentsOfFile: html, encoding: .utf8)
    XCTAssertFalse(source.contains("src=\"http") || source.contains("href=\"http"), "nothing is fetched: the file works offline")

    let dom = try renderedDOM(html)
    XCTAssertEqual(occurrences(of: "<article class=\"cycle\"", in: dom), 4, dom)
    XCTAssertEqual(occurrences(of: "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"cycle-diagram\"", in: dom), 4)
    XCTAssertTrue(
      dom.contains("FeedViewModel.onUpdate → closure #1 in FeedViewModel.bind(to:).capture #1: FeedViewModel → FeedViewModel"), dom)
    XCTAssertTrue(dom.contains("In short: <code>FeedViewModel.onUpdate → closure in FeedViewModel.bind(to:) → FeedViewModel</code>"), dom)
    XCTAssertTrue(dom.contains("Names from FeedApp are written without their module."), dom)
    XCTAssertTrue(dom.contains("<span class=\"site\""), "allocation sites with source lines")
    XCTAssertTrue(dom.contains("<table id=\"allocation-sites\" class=\"sortable\""), dom)

    // A screenshot of the page as a browser shows it: a PNG of the window's size.
    let screenshot = NSTemporaryDirectory() + "leak-report-\(UUID().uuidString).png"
    defer { try? FileManager.default.removeItem(atPath: screenshot) }
    let shot = try BuiltProgram.tool("chromium").run(
      [
        "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1200,900", "--screenshot=" + screenshot,
        "file://" + html,
      ])
    XCTAssertEqual(shot.status, 0, shot.standardError)
    let png = try Data(contentsOf: URL(fileURLWithPath: screenshot))
    XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "a PNG")
    let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }
    let height = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
    XCTAssertEqual([width, height], [1200, 900])
    XCTAssertGreaterThan(png.count, 20_000, "a page with content, not a blank one")
  }

  /// Leak groups sort in the browser: the address asks for an order, and the script applies it.
  func testAnalyzeHTML_leakGroups_sortByRetainedSizeInChromium() throws {
    let html = try report(["analyze", fixtures + "/report-heap.json", "--expect-dead-generation", "2"])
    defer { try? FileManager.default.removeItem(atPath: html) }
    func retainedColumn(_ dom: String) throws -> [Int] {
      let table = try XCTUnwrap(dom.range(of: "<table id=\"leak-groups\"").map { dom[$0.lowerBound...] })
      let body = table[..<(table.range(of: "</table>")?.lowerBound ?? table.endIndex)]
      return body.components(separatedBy: "<tr>").dropFirst(2).compactMap { row in
        // Cells: rank, instances, entry, objects, retained, fingerprint.
        let values = row.components(separatedBy: "data-value=\"").dropFirst().map { $0.prefix { $0.isNumber } }
        return values.count >= 4 ? Int(values[3]) : nil
      }
    }
    let unsorted = try renderedDOM(html)
    XCTAssertEqual(occurrences(of: "<article class=\"cycle\"", in: unsorted), 2)
    XCTAssertEqual(try retainedColumn(unsorted), [1_048, 144], "largest first, as the analysis orders them")
    XCTAssertTrue(unsorted.contains("<article class=\"finding survivor\""), unsorted)
    XCTAssertTrue(unsorted.contains("<span class=\"suspect\" title=\"likely cause\">AppState.feeds[0]</span>"), unsorted)

    let ascending = try renderedDOM(html, fragment: "#sort=leak-groups:retained:asc")
    XCTAssertTrue(ascending.contains("data-sorted=\"retained:asc\""), ascending)
    XCTAssertEqual(try retainedColumn(ascending), [144, 1_048])
  }

  /// The gate's page: the new, accepted and fixed split, with the new cycles drawn by Graphviz
  /// when it is installed.
  func testGateHTML_newAcceptedAndFixed_inChromium() throws {
    let directory = NSTemporaryDirectory() + "gate-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let heap = fixtures + "/report-heap.json"
    // Accept everything, then drop one accepted cycle and add a fixed one.
    let accept = try BuiltProgram("leak-detector").run(["gate", heap, "--baseline", directory + "/baseline.json", "--update-baseline"])
    XCTAssertEqual(accept.status, 0, accept.standardError)
    var baseline =
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory + "/baseline.json"))) as! [String: Any]
    var accepted = baseline["accepted"] as! [String: Any]
    let cycle = try XCTUnwrap(accepted.first { ($0.value as! [String: Any])["kind"] as? String == "cycle" }?.key)
    accepted[cycle] = nil
    accepted["00000000000000ff"] = ["kind": "leak", "summary": "App.Old", "reason": "fixed since"]
    baseline["accepted"] = accepted
    try JSONSerialization.data(withJSONObject: baseline).write(to: URL(fileURLWithPath: directory + "/baseline.json"))

    let layout = (try? BuiltProgram.tool("dot")) == nil ? "built-in" : "graphviz"
    let html = try report(["gate", heap, "--baseline", directory + "/baseline.json", "--layout", layout])
    defer { try? FileManager.default.removeItem(atPath: html) }
    let dom = try renderedDOM(html)
    XCTAssertTrue(dom.contains("<p class=\"verdict bad\">1 new finding</p>"), dom)
    XCTAssertEqual(occurrences(of: "<article class=\"finding cycle\"", in: dom), 1)
    XCTAssertTrue(dom.contains("data-layout=\"\(layout)\""), dom)
    XCTAssertEqual(
      occurrences(of: "<tr>", in: dom.components(separatedBy: "<table id=\"accepted-findings\"").last ?? ""), 4,
      "a header and 3 accepted (no survivors without --expect-dead-generation)")
    XCTAssertTrue(dom.contains("<li class=\"fingerprint\">00000000000000ff</li>"), dom)
  }

  /// The growth report of four snapshots: the growing path's chart is drawn in Chromium.
  func testGrowthHTML_chartsEachGrowingPathInChromium() throws {
    let directory = NSTemporaryDirectory() + "growth-html-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    var files: [String] = []
    for round in 1...4 {
      var builder = HeapSnapshot.Builder()
      builder.addObject(id: 1, type: "App.Cache", address: 0x1000, size: 32)
      builder.addRoot(object: 1, kind: .global, label: "App.Cache.shared")
      for index in 0..<round {
        builder.addObject(id: Int64(10 + index), type: "App.Response", address: UInt64(10 + index) * 0x100, size: 48)
        builder.addReference(from: 1, to: Int64(10 + index), label: "entries[\(index)]", ownership: .strong)
      }
      files.append(directory + "/s\(round).json")
      try Data(builder.snapshot.jsonBytes()).write(to: URL(fileURLWithPath: files.last!))
    }
    let html = try report(["growth"] + files)
    defer { try? FileManager.default.removeItem(atPath: html) }
    let dom = try renderedDOM(html)
    XCTAssertEqual(occurrences(of: "<article class=\"finding growth\"", in: dom), 1, dom)
    XCTAssertTrue(dom.contains("aria-label=\"counts 1, 2, 3, 4\""), dom)
    XCTAssertTrue(dom.contains("Cache.entries[*]"), dom)
  }
}
