import HeapGraph
import LeakTestSupport
import XCTest

final class GateTests: XCTestCase {
  private func findings(_ heap: TestHeap) -> [HeapFinding] {
    HeapAnalysis(graph: heap.graph).findings
  }

  private let leaky = TestHeap("App.feed -> Feed; Feed.onUpdate -> Closure; Closure.capture -> Feed; Orphan.x -> Orphan", roots: ["App"])

  func testGate_newFinding_fails() {
    let outcome = GateOutcome(findings: findings(leaky), baseline: Baseline())
    XCTAssertEqual(outcome.verdict, .newFindings)
    XCTAssertEqual(outcome.newFindings.map(\.kind), [.cycle, .cycle, .leak])
    XCTAssertTrue(outcome.renderText(baseline: "b.json", acceptCommand: "accept-it").contains("accept them with:\n  accept-it\n"))
    XCTAssertFalse(outcome.renderText(baseline: "b.json").contains("accept"), "library users get no command-line advice")
  }

  /// Code-scanning UIs annotate a finding's location: a leak group's is its entry's allocation
  /// site, a survivor's its own.
  func testFindings_leakGroupsAndSurvivors_areLocatedAtTheirAllocationSites() {
    var builder = HeapSnapshot.Builder(metadata: .init(tool: "t"))
    builder.addStack(
      id: 1,
      frames: [
        StackFrame(symbol: "MyApp.Leaky.__allocating_init()", file: "Leaky.swift", line: 3),
        StackFrame(symbol: "MyApp.makeLeaky()", file: "Screen.swift", line: 12),
      ])
    builder.addStack(id: 2, frames: [StackFrame(symbol: "MyApp.makeHeld()", file: "Screen.swift", line: 20)])
    builder.addObject(id: 1, type: "MyApp.App")
    builder.addObject(id: 2, type: "MyApp.Leaky", generation: 1, stack: 1)
    builder.addObject(id: 3, type: "MyApp.Held", generation: 1, stack: 2)
    builder.addReference(from: 2, to: 2, label: "me", ownership: .strong)
    builder.addReference(from: 1, to: 3, label: "held", ownership: .strong)
    builder.addRoot(object: 1, kind: "global", label: "App.shared")
    let graph = ObjectGraph(builder.snapshot)
    let found = HeapAnalysis(graph: graph, options: .init(expectedDead: .generation(atLeast: 1))).findings
    let sites = Dictionary(uniqueKeysWithValues: found.map { ($0.kind, $0.location.map { "\($0.file ?? "") \($0.line ?? 0)" }) })
    XCTAssertEqual(sites, [.cycle: "Screen.swift 12", .leak: "Screen.swift 12", .survivor: "Screen.swift 20"])
  }

  func testSARIF_filesUnderTheSourceRoot_areRelativeToSRCROOT() throws {
    let inside = HeapFinding(
      kind: .cycle, fingerprint: Fingerprint(rawValue: 0x1), summary: "A.me -> A", count: 1,
      location: StackFrame(symbol: "f()", file: "/ci/checkout/Sources/App/A.swift", line: 7))
    var outside = inside
    outside.fingerprint = Fingerprint(rawValue: 0x2)
    outside.location?.file = "/usr/lib/swift/B.swift"
    let sarif = GateOutcome(findings: [inside, outside], baseline: Baseline()).renderSARIF(toolVersion: "1", sourceRoot: "/ci/checkout")
    let run = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(sarif.utf8)) as? [String: Any])?["runs"] as? [[String: Any]]).first
    XCTAssertEqual((run?["originalUriBaseIds"] as? [String: [String: String]])?["%SRCROOT%"]?["uri"], "file:///ci/checkout/")
    let locations = (run?["results"] as? [[String: Any]])?.map {
      (($0["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any])?["artifactLocation"] as? [String: String]
    }
    XCTAssertEqual(locations, [["uri": "Sources/App/A.swift", "uriBaseId": "%SRCROOT%"], ["uri": "/usr/lib/swift/B.swift"]])
  }

  func testGate_acceptedFindings_pass() {
    let all = findings(leaky)
    let outcome = GateOutcome(findings: all, baseline: Baseline(accepting: all, previous: nil))
    XCTAssertEqual(outcome.verdict, .passed)
    XCTAssertEqual(outcome.acceptedFindings.count, 3)
  }

  func testGate_fixedFinding_isReportedWithItsOwnStatus() {
    let baseline = Baseline(accepting: findings(leaky), previous: nil)
    let fixed = TestHeap("App.feed -> Feed; Feed.onUpdate -> Closure; Closure.capture -> Feed", roots: ["App"])
    let outcome = GateOutcome(findings: findings(fixed), baseline: baseline)
    XCTAssertEqual(outcome.verdict, .baselineStale)
    XCTAssertEqual(outcome.fixedFingerprints.count, 2, "the orphan was both a cycle and a leak group")
  }

  func testBaseline_roundTripsAndKeepsReasons() throws {
    var baseline = Baseline(accepting: findings(leaky), previous: nil)
    let key = try XCTUnwrap(baseline.accepted.keys.sorted().first)
    baseline.accepted[key]?.reason = "known, issue #12"
    let reread = try Baseline(jsonBytes: baseline.jsonBytes())
    XCTAssertEqual(reread, baseline)
    var previous = reread
    previous.accepted = previous.accepted.filter { $0.key == key }
    let updated = Baseline(accepting: findings(leaky), previous: previous, reasonForNew: "say why")
    XCTAssertEqual(updated.accepted[key]?.reason, "known, issue #12")
    XCTAssertEqual(updated.accepted.values.filter { $0.reason == "say why" }.count, updated.accepted.count - 1)
  }

  func testRenderers_produceWellFormedDocuments() throws {
    let outcome = GateOutcome(findings: findings(leaky), baseline: Baseline())
    let sarif = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.renderSARIF(toolVersion: "0.1.0").utf8)) as? [String: Any])
    XCTAssertEqual(sarif["version"] as? String, "2.1.0")
    let run = try XCTUnwrap((sarif["runs"] as? [[String: Any]])?.first)
    let results = try XCTUnwrap(run["results"] as? [[String: Any]])
    XCTAssertEqual(results.count, 3)
    XCTAssertEqual(Set(results.compactMap { $0["baselineState"] as? String }), ["new"])
    XCTAssertNotNil(try JSONSerialization.jsonObject(with: Data(outcome.renderJSON(exitStatus: 2).utf8)))
    let junit = outcome.renderJUnit()
    XCTAssertTrue(junit.contains("failures=\"3\""))
    XCTAssertEqual(junit.components(separatedBy: "<testcase").count - 1, 3)
    XCTAssertTrue(outcome.renderMarkdown().contains("| new | cycle |"))
  }
}
