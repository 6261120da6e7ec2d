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
      ["--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=10000", "--dump-dom", "file://" + file + fragment])
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

  /// The demo's real capture: the explorer opens in Chromium (its script decodes the embedded
  /// data and draws the summary), and each leak group and cycle shape is drawn once.
  func testAnalyzeHTML_demoCapture_opensTheExplorerInChromium() throws {
    let snapshot = NSTemporaryDirectory() + "feed-app-\(UUID().uuidString).json"
    defer { try? FileManager.default.removeItem(atPath: snapshot) }
    XCTAssertEqual(try FeedAppDemo.program().run([snapshot]).status, 0)
    let html = try report(["analyze", snapshot, "--layout", "built-in"])
    defer { try? FileManager.default.removeItem(atPath: html) }
    let source = try String(contentsOfFile: html, encoding: .utf8)
    XCTAssertFalse(source.contains("src=\"http") || source.contains("href=\"http"), "nothing is fetched: the file works offline")
    XCTAssertTrue(source.contains("id=\"heap-data\" data-encoding=\"gzip\""), "the CLI compresses the data")

    let dom = try renderedDOM(html)
    XCTAssertTrue(dom.contains("data-ready=\"true\""), "the first view was drawn: \(dom)")
    XCTAssertTrue(dom.contains("<nav class=\"tiles\">"), dom)
    XCTAssertTrue(dom.contains("<h2>What holds the memory</h2>"), dom)
    let diagrams = occurrences(of: "class=\"cycle-diagram\"", in: dom)
    XCTAssertGreaterThan(diagrams, 0)
    let otherCycles = occurrences(of: "<article class=\"cycle\"", in: dom)
    XCTAssertLessThanOrEqual(
      diagrams - otherCycles, occurrences(of: "<article class=\"leak-group\"", in: dom), "a leak group is drawn once")
    let fingerprints = dom.components(separatedBy: "<article class=\"cycle\" id=\"").dropFirst().compactMap {
      $0.components(separatedBy: "data-fingerprint=\"").dropFirst().first?.prefix(16)
    }
    XCTAssertEqual(fingerprints.count, Set(fingerprints).count, "each other cycle shape is drawn once")
    XCTAssertTrue(
      dom.contains("FeedViewModel.onUpdate → closure #1 in FeedViewModel.bind(to:).capture #1: FeedViewModel → FeedViewModel"), dom)
    XCTAssertTrue(dom.contains("Names from FeedApp are written without their module."), dom)

    // A screenshot of the page as a browser shows it: a PNG of the window's size.
    let screenshot = NSTemporaryDirectory() + "leak-report-\(UUID().uuidString).png"
    defer { try? FileManager.default.removeItem(atPath: screenshot) }
    let shot = try BuiltProgram.tool("chromium").run(
      [
        "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1200,900", "--virtual-time-budget=10000",
        "--screenshot=" + screenshot, "file://" + html,
      ])
    XCTAssertEqual(shot.status, 0, shot.standardError)
    let png = try Data(contentsOf: URL(fileURLWithPath: screenshot))
    XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "a PNG")
    let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }
    let height = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
    XCTAssertEqual([width, height], [1200, 900])
    XCTAssertGreaterThan(png.count, 20_000, "a page with content, not a blank one")
  }

  /// 153 identical leaked cycles are one leak group, drawn once with its count: the static
  /// report drew the cycle 153 times.
  func testAnalyzeHTML_manyIdenticalLeaks_drawsTheirGroupOnce() throws {
    var builder = HeapSnapshot.Builder()
    builder.addObject(id: 1, type: "App.Screen", address: 0x1000, size: 32)
    builder.addRoot(object: 1, kind: .global, label: "App.screen")
    for index in 0..<153 {
      let session = Int64(100 + 2 * index)
      builder.addObject(id: session, type: "App.Session", address: UInt64(session) * 0x100, size: 48)
      builder.addObject(id: session + 1, type: "App.Token", address: UInt64(session + 1) * 0x100, size: 24)
      builder.addReference(from: session, to: session + 1, label: "token", ownership: .strong)
      builder.addReference(from: session + 1, to: session, label: "session", ownership: .strong)
    }
    let snapshot = NSTemporaryDirectory() + "identical-leaks-\(UUID().uuidString).json"
    defer { try? FileManager.default.removeItem(atPath: snapshot) }
    try Data(builder.snapshot.jsonBytes()).write(to: URL(fileURLWithPath: snapshot))
    let html = try report(["analyze", snapshot, "--layout", "built-in"])
    defer { try? FileManager.default.removeItem(atPath: html) }
    let source = try String(contentsOfFile: html, encoding: .utf8)
    XCTAssertEqual(occurrences(of: "class=\"cycle-diagram\"", in: source), 1, source)
    XCTAssertEqual(occurrences(of: "data-instances=\"153\"", in: source), 1, source)
    XCTAssertLessThan(source.utf8.count, 80_000, "the script and one drawing, not 153")
    let dom = try renderedDOM(html, fragment: "#view=leaks")
    XCTAssertTrue(dom.contains("<span class=\"count\">153 ×</span>"), dom)
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
