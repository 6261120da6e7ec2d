import HeapGraph
import LeakTestSupport
import XCTest

/// Every renderer's output, byte for byte, on one heap that has all the findings: a reachable
/// cycle through a closure (whose object survives its generation), a leaked cycle, a leaked tree,
/// weak references, allocation sites inside and outside the source root.
final class RendererGoldenTests: XCTestCase {
  /// `withLeaks: false` is the same program before its screen leaked (for diffs).
  private func heap(withLeaks: Bool = true) -> HeapSnapshot {
    var builder = HeapSnapshot.Builder(metadata: .init(tool: "swift-leak-detector test", createdAt: "2026-11-22T10:00:00Z", process: "App"))
    builder.addStack(
      id: 1,
      frames: [
        StackFrame(symbol: "App.Feed.__allocating_init() -> App.Feed", file: "/ci/checkout/Sources/App/Feed.swift", line: 3),
        StackFrame(symbol: "App.Screen.show() -> ()", file: "/ci/checkout/Sources/App/Screen.swift", line: 14),
      ])
    builder.addStack(
      id: 2, frames: [StackFrame(symbol: "closure #1 in App.Feed.load() -> ()", file: "/ci/checkout/Sources/App/Feed.swift", line: 21)])
    builder.addStack(
      id: 3, frames: [StackFrame(symbol: "App.Screen.cache() -> App.Cache", file: "/ci/checkout/Sources/App/Screen.swift", line: 30)])
    builder.addStack(id: 4, frames: [StackFrame(symbol: "Vendor.Pool.make() -> Vendor.Pool", file: "/usr/src/vendor/Pool.swift", line: 7)])
    builder.addObject(id: 1, type: "App.AppState", address: 0x1000, size: 32, generation: 0)
    builder.addObject(id: 2, type: "App.Feed", address: 0x2000, size: 48, generation: 2, stack: 1)
    builder.addObject(id: 3, type: "closure #1 in App.Feed.load()", address: 0x3000, size: 32, generation: 2, stack: 2)
    builder.addReference(from: 1, to: 2, label: "feeds[0]", ownership: .strong)
    builder.addReference(from: 2, to: 3, label: "onUpdate", ownership: .strong)
    builder.addReference(from: 3, to: 2, label: "capture #0: Feed", ownership: .strong)
    builder.addReference(from: 2, to: 1, label: "state", ownership: .weak)
    builder.addRoot(object: 1, kind: "global", label: "App.shared")
    if withLeaks {
      builder.addObject(id: 10, type: "App.Cache", address: 0xa000, size: 64, generation: 2, stack: 3)
      builder.addObject(id: 11, type: "App.Entry", address: 0xb000, size: 40, generation: 2, stack: 3)
      builder.addObject(id: 12, type: "App.Entry", address: 0xc000, size: 40, generation: 2, stack: 3)
      builder.addReference(from: 10, to: 11, label: "entries[\"a\"]", ownership: .strong)
      builder.addReference(from: 10, to: 12, label: "entries[\"b\"]", ownership: .strong)
      builder.addReference(from: 11, to: 10, label: "owner", ownership: .strong)
      builder.addReference(from: 12, to: 10, label: "owner", ownership: .unowned)
      builder.addObject(id: 20, type: "Vendor.Pool", address: 0xd000, size: 24, generation: 2, stack: 4)
      builder.addObject(id: 21, type: "Vendor.Buffer", address: 0xe000, size: 1024, generation: 2, stack: 4)
      builder.addReference(from: 20, to: 21, label: "buffers[0]", ownership: .strong)
    }
    return builder.snapshot
  }

  private func analysis(of snapshot: HeapSnapshot) -> HeapAnalysis {
    HeapAnalysis(graph: ObjectGraph(snapshot), options: .init(expectedDead: .generation(atLeast: 2)))
  }

  func testAnalysisRenderers_matchGoldenFiles() {
    let analysis = analysis(of: heap())
    assertMatchesGolden(analysis.renderText(), named: "analysis.txt")
    assertMatchesGolden(analysis.renderJSON(), named: "analysis.json")
    assertMatchesGolden(analysis.cycles.renderDOT(), named: "analysis.dot")
    let asGate = GateOutcome(findings: analysis.findings, baseline: Baseline())
    assertMatchesGolden(asGate.renderSARIF(toolVersion: "0.1.0", sourceRoot: "/ci/checkout"), named: "analysis.sarif")
    assertMatchesGolden(asGate.renderJUnit(), named: "analysis.junit.xml")
    assertMatchesGolden(analysis.renderMarkdown(), named: "analysis.md")
    assertMatchesGolden(analysis.renderHTML(), named: "analysis.html")
  }

  func testGateRenderers_newAcceptedAndFixed_matchGoldenFiles() throws {
    let findings = analysis(of: heap()).findings
    let cycle = try XCTUnwrap(findings.first { $0.kind == .cycle })
    var baseline = Baseline(accepting: [cycle], previous: nil, reasonForNew: "known, issue #12")
    baseline.accepted["00000000000000ff"] = .init(kind: "leak", summary: "App.Old", reason: "fixed since")
    let outcome = GateOutcome(findings: findings, baseline: baseline)
    XCTAssertEqual(outcome.verdict, .newFindings)
    let accept = "leak-detector gate app.json --baseline Baselines/leaks.json --update-baseline"
    assertMatchesGolden(outcome.renderText(baseline: "Baselines/leaks.json", acceptCommand: accept), named: "gate.txt")
    assertMatchesGolden(outcome.renderJSON(exitStatus: 2), named: "gate.json")
    assertMatchesGolden(outcome.renderSARIF(toolVersion: "0.1.0", sourceRoot: "/ci/checkout"), named: "gate.sarif")
    assertMatchesGolden(outcome.renderJUnit(), named: "gate.junit.xml")
    assertMatchesGolden(outcome.renderMarkdown(acceptCommand: accept), named: "gate.md")
    assertMatchesGolden(outcome.renderHTML(baseline: "Baselines/leaks.json", acceptCommand: accept), named: "gate.html")
    assertMatchesGolden(String(decoding: baseline.jsonBytes(), as: UTF8.self), named: "baseline.json")
  }

  func testDiffRenderers_matchGoldenFiles() {
    let diff = HeapDiff(old: analysis(of: heap(withLeaks: false)), new: analysis(of: heap()))
    XCTAssertTrue(diff.hasGrowth)
    assertMatchesGolden(diff.renderText(old: "before.json", new: "after.json"), named: "diff.txt")
    assertMatchesGolden(diff.renderJSON(old: "before.json", new: "after.json"), named: "diff.json")
    assertMatchesGolden(diff.renderHTML(old: "before.json", new: "after.json"), named: "diff.html")
  }

  /// The roles of the text reports' lines, which a terminal colours: verdicts, headings,
  /// notes, details, item numbers, suspects and source locations.
  func testTextRenderers_lineRoles_matchGoldenFiles() throws {
    let analysis = analysis(of: heap())
    assertMatchesGolden(analysis.reportText().markedUp, named: "analysis.roles.txt")
    let clean = self.analysis(of: heap(withLeaks: false))
    assertMatchesGolden(clean.reportText().markedUp, named: "analysis-without-leaks.roles.txt")
    let findings = analysis.findings
    let cycle = try XCTUnwrap(findings.first { $0.kind == .cycle })
    var baseline = Baseline(accepting: [cycle], previous: nil, reasonForNew: "known, issue #12")
    baseline.accepted["00000000000000ff"] = .init(kind: "leak", summary: "App.Old", reason: "fixed since")
    let accept = "leak-detector gate app.json --baseline Baselines/leaks.json --update-baseline"
    let outcome = GateOutcome(findings: findings, baseline: baseline)
    assertMatchesGolden(outcome.reportText(baseline: "Baselines/leaks.json", acceptCommand: accept).markedUp, named: "gate.roles.txt")
    let passed = GateOutcome(findings: [cycle], baseline: Baseline(accepting: [cycle], previous: nil, reasonForNew: "known"))
    XCTAssertEqual(passed.reportText(baseline: "b.json").markedUp, "<success>No new leaks: 1 accepted finding still present.</success>\n")
    let diff = HeapDiff(old: clean, new: analysis)
    assertMatchesGolden(diff.reportText(old: "before.json", new: "after.json").markedUp, named: "diff.roles.txt")
    XCTAssertEqual(
      HeapDiff(old: clean, new: clean).reportText(old: "a.json", new: "b.json").markedUp,
      "<success>No change from a.json to b.json.</success>\n")
  }

  func testSnapshotWriter_matchesGoldenFile() {
    assertMatchesGolden(String(decoding: heap().jsonBytes(), as: UTF8.self), named: "heap.json")
  }
}
