import HeapGraph
import LeakTestSupport
import XCTest

/// The order of a report for people and the folding of dependencies' cycles, on a server's heap
/// captured mid-load: open connections (framework cycles a root still reaches), the package's own
/// reachable cycle, one the package made of a framework's types, and two leaks.
final class CycleListingTests: XCTestCase {
  private static let package = "/pkg"
  private static let nio = "/pkg/.build/checkouts/swift-nio/Sources/NIOCore"

  /// The server's heap; `withRoots: false` drops every root, `withStacks: false` every stack.
  private func serverHeap(withRoots: Bool = true, withStacks: Bool = true) -> HeapSnapshot {
    var builder = HeapSnapshot.Builder(metadata: .init(process: "Server"))
    let framework = StackFrame(
      symbol: "NIOCore.ChannelPipeline.init() -> NIOCore.ChannelPipeline", file: Self.nio + "/ChannelPipeline.swift", line: 1064)
    let own = StackFrame(symbol: "App.Server.accept() -> ()", file: Self.package + "/Sources/App/Server.swift", line: 20)
    let test = StackFrame(
      symbol: "AppTests.ServerTests.testRoute() -> ()", file: Self.package + "/Tests/AppTests/ServerTests.swift", line: 9)
    if withStacks {
      builder.addStack(id: 1, frames: [framework])  // the framework's own connections
      builder.addStack(id: 2, frames: [framework, own])  // a pipeline the package's code made
      builder.addStack(id: 3, frames: [test])
    }
    func stack(_ id: Int64) -> Int64? { withStacks ? id : nil }
    builder.addObject(id: 1, type: "NIOPosix.EventLoop", stack: stack(1))
    if withRoots { builder.addRoot(object: 1, kind: "global", label: "NIOPosix.loop") }
    // Three open connections of two shapes, reachable: the framework's.
    for base: Int64 in [10, 20] {
      builder.addObject(id: base, type: "NIOCore.ChannelHandlerContext", stack: stack(1))
      builder.addObject(id: base + 1, type: "NIOCore.ChannelHandlerContext", stack: stack(1))
      builder.addReference(from: 1, to: base, label: "channels[\(base)]", ownership: .strong)
      builder.addReference(from: base, to: base + 1, label: "next", ownership: .strong)
      builder.addReference(from: base + 1, to: base, label: "prev", ownership: .strong)
    }
    builder.addObject(id: 30, type: "NIOCore.Timer", stack: stack(1))
    builder.addObject(id: 31, type: "closure #1 in NIOCore.Timer.start()", stack: stack(1))
    builder.addReference(from: 1, to: 30, label: "timer", ownership: .strong)
    builder.addReference(from: 30, to: 31, label: "handler", ownership: .strong)
    builder.addReference(from: 31, to: 30, label: "capture #0: Timer", ownership: .strong)
    // A connection the package's code made: a framework type, but the package's own line.
    builder.addObject(id: 40, type: "NIOCore.ChannelHandlerContext", stack: stack(2))
    builder.addObject(id: 41, type: "NIOCore.ChannelHandlerContext", stack: stack(2))
    builder.addReference(from: 1, to: 40, label: "channels[40]", ownership: .strong)
    builder.addReference(from: 40, to: 41, label: "next", ownership: .strong)
    builder.addReference(from: 41, to: 40, label: "prev", ownership: .strong)
    // The package's own types in a reachable cycle (no stack: known by their module).
    builder.addObject(id: 50, type: "App.Session")
    builder.addObject(id: 51, type: "App.Handler")
    builder.addReference(from: 1, to: 50, label: "sessions[0]", ownership: .strong)
    builder.addReference(from: 50, to: 51, label: "handler", ownership: .strong)
    builder.addReference(from: 51, to: 50, label: "session", ownership: .strong)
    // Two leaks: the package's cache cycle and a framework cycle the test made.
    builder.addObject(id: 60, type: "App.Cache", stack: stack(3))
    builder.addObject(id: 61, type: "App.Entry", stack: stack(3))
    builder.addReference(from: 60, to: 61, label: "entries[0]", ownership: .strong)
    builder.addReference(from: 61, to: 60, label: "owner", ownership: .strong)
    builder.addObject(id: 70, type: "NIOCore.EmbeddedChannel", size: 512, stack: stack(2))
    builder.addObject(id: 71, type: "NIOCore.ChannelHandlerContext", stack: stack(2))
    builder.addReference(from: 70, to: 71, label: "head", ownership: .strong)
    builder.addReference(from: 71, to: 70, label: "channel", ownership: .strong)
    return builder.snapshot
  }

  private func analysis(_ snapshot: HeapSnapshot, packageDirectory: String? = package) -> HeapAnalysis {
    HeapAnalysis(graph: ObjectGraph(snapshot), options: .init(ownCode: OwnCode(packageDirectory: packageDirectory)))
  }

  /// Where each of `needles` starts in `text`, failing on one that is missing.
  private func positions(of needles: [String], in text: String, file: StaticString = #filePath, line: UInt = #line) -> [Int] {
    needles.map { needle in
      guard let range = text.range(of: needle) else {
        XCTFail("missing \(needle) in\n\(text)", file: file, line: line)
        return -1
      }
      return text.distance(from: text.startIndex, to: range.lowerBound)
    }
  }

  // MARK: - Text

  func testText_serverHeap_leaksThenLeakedCyclesThenOwnThenFoldedFramework() {
    let text = analysis(serverHeap()).renderText()
    assertMatchesGolden(text, named: "server-heap.txt")
    let order = positions(
      of: [
        "Leaks: 4 objects unreachable from every root, in 2 groups", "(leaked: leak group", "(leaked: leak group",
        "(still reachable)\n  1) NIOCore.ChannelHandlerContext.next", "(still reachable)\n  1) Handler.session",
        "3 more components of dependencies' types still reachable",
      ], in: text)
    XCTAssertEqual(order, order.sorted(), text)
    XCTAssertTrue(
      text.contains(
        "3 more components of dependencies' types still reachable (open connections, caches; 3 cycles): "
          + "2 × ChannelHandlerContext.next → ChannelHandlerContext.prev → ChannelHandlerContext, "
          + "1 × Timer.handler → closure in Timer.start() → Timer; allCycles: true lists them\n"), text)
    XCTAssertFalse(text.contains("object 10"), "a folded component is not listed: \(text)")
  }

  func testText_allCycles_listsTheFrameworksReachableCyclesLast() {
    let text = analysis(serverHeap()).renderText(allCycles: true)
    XCTAssertFalse(text.contains("more components of dependencies' types"), text)
    let order = positions(
      of: [
        "Leaks:", "(leaked: leak group", "1) Handler.session",
        "Component 1: 2 objects, 1 cycle (still reachable); and 1 more component with the same cycles", "Timer.handler",
      ],
      in: text)
    XCTAssertEqual(order, order.sorted(), text)
  }

  func testText_cycleOfLeakedObjects_isListedOnceWithItsLeakGroup() throws {
    let analysis = analysis(serverHeap())
    let text = analysis.renderText()
    let group = try XCTUnwrap(analysis.leaks.leakGroups.firstIndex { $0.entryObjectIDs.contains(60) || $0.entryObjectIDs.contains(61) })
    XCTAssertEqual(text.components(separatedBy: "1) Cache.entries[0] → Entry.owner → Cache\n").count - 1, 1, text)
    XCTAssertTrue(text.contains("1 cycle (leaked: leak group \(group + 1) above)\n  1) Cache.entries[0]"), text)
  }

  /// XCTest's suite holds a test case whose properties hold two cycles of the program's, each a
  /// leak group of its own: each cycle points to its own group, not to the suite's, which
  /// reaches them first.
  func testText_cycleThatIsAGroupsEntry_pointsToThatGroupNotToOneThatReachesIt() throws {
    var builder = HeapSnapshot.Builder()
    let types: [Int64: String] = [
      1: "XCTest.XCTestSuite", 2: "XCTest.XCTestSuiteRun", 3: "AppTests.ShelterTests", 4: "XCTest.XCTestCaseRun",
      5: "App.Owner", 6: "App.Pet", 7: "AppTests.Fixture", 8: "App.Node", 9: "App.Node",
    ]
    for (id, type) in types.sorted(by: { $0.key < $1.key }) { builder.addObject(id: id, type: type) }
    for (from, to, label) in [
      (1, 2, "testRun"), (2, 1, "test"), (1, 3, "tests[0]"), (3, 4, "testRun"), (4, 3, "test"), (3, 5, "owner"),
      (5, 6, "pets[0]"), (6, 5, "owner"), (3, 7, "fixture"), (7, 8, "first"), (8, 9, "next"), (9, 8, "next"),
    ] as [(Int64, Int64, String)] {
      builder.addReference(from: from, to: to, label: label, ownership: .strong)
    }
    let analysis = HeapAnalysis(graph: ObjectGraph(builder.snapshot), options: .init(rootsAreComplete: true, frameworkTypes: .standard))
    let groups = analysis.leaks.leakGroups
    XCTAssertEqual(groups.count, 3)
    let text = analysis.renderText()
    for (type, label) in [("Owner", "pets[0]"), ("Node", "next")] {
      let group = try XCTUnwrap(groups.firstIndex { $0.summary.hasPrefix("App.\(type).\(label)") })
      XCTAssertTrue(text.contains("(leaked: leak group \(group + 1) above)\n  1) \(type).\(label)"), "\(type) in\n\(text)")
    }
  }

  /// Without stacks and with no own module known, every cycle could be the user's: none is folded.
  func testText_noOwnFrameAnywhere_foldsNothing() {
    for text in [analysis(serverHeap(withStacks: false)).renderText(), analysis(serverHeap(), packageDirectory: "/elsewhere").renderText()]
    {
      XCTAssertFalse(text.contains("more components of dependencies' types"), text)
      XCTAssertTrue(text.contains("Component 3: 2 objects, 1 cycle (still reachable)\n  1) "), text)
    }
  }

  /// Without roots nothing is leaked or reachable: the cycles are the report, the package's own
  /// first, none folded.
  func testText_noRoots_listsEveryCycleOwnFirstBeforeTheLeaksNote() {
    let text = analysis(serverHeap(withRoots: false)).renderText()
    XCTAssertFalse(text.contains("more components of dependencies' types"), text)
    XCTAssertFalse(text.contains("still reachable"), text)
    let order = positions(
      of: [
        "1) NIOCore.ChannelHandlerContext.next", "1) Handler.session", "1) Cache.entries[0]", "1) NIOCore.Timer.handler",
        "Leaks: the snapshot lists no roots",
      ],
      in: text)
    XCTAssertEqual(order, order.sorted(), text)
  }

  // MARK: - Machine formats, Markdown, HTML

  func testJSON_keepsEveryCycle() {
    let analysis = analysis(serverHeap())
    let json = analysis.renderJSON()
    for cycle in analysis.cycles.cycles { XCTAssertTrue(json.contains("\"\(cycle.fingerprint)\""), "\(cycle) in\n\(json)") }
    XCTAssertEqual(analysis.cycles.cycles.count, 7)
  }

  func testMarkdown_leaksFirst_leakedCyclesPointToTheirLeak_frameworkFolded() throws {
    let analysis = analysis(serverHeap())
    let markdown = analysis.renderMarkdown()
    let rows = markdown.split(separator: "\n").filter { $0.hasPrefix("| new |") }
    XCTAssertEqual(
      rows.map { $0.split(separator: "|")[1].trimmingCharacters(in: .whitespaces) }, ["leak", "leak", "cycle", "cycle", "cycle", "cycle"],
      markdown)
    let cacheLeak = try XCTUnwrap(analysis.leaks.leakGroups.first { $0.summary.contains("App.Cache") })
    XCTAssertTrue(markdown.contains("Cache.entries[0] → Entry.owner → Cache (leaked: leak \(cacheLeak.fingerprint)) |"), markdown)
    XCTAssertTrue(markdown.contains("\n1 more component of dependencies' types still reachable"), markdown)
    XCTAssertFalse(markdown.contains("| NIOCore.Timer.handler"), markdown)
    XCTAssertTrue(analysis.renderMarkdown(allCycles: true).contains("| NIOCore.Timer.handler →"))
  }

  func testHTML_leakGroupsDrawnOnceBeforeOtherCycles_frameworkFoldedUnlessAllCycles() {
    let html = analysis(serverHeap()).renderHTML()
    let order = positions(
      of: ["<h2>Leak groups", "<h2>Other retain cycles", "(still reachable)", "more components of dependencies"], in: html)
    XCTAssertEqual(order, order.sorted())
    XCTAssertFalse(html.contains("(leaked: leak group"), "a leak group's cycle is drawn with the group, not again")
    XCTAssertFalse(analysis(serverHeap()).renderHTML(allCycles: true).contains("more components of dependencies"))
    let withoutRoots = analysis(serverHeap(withRoots: false)).renderHTML()
    let rootless = positions(of: ["The snapshot lists no roots", "<h2>Other retain cycles"], in: withoutRoots)
    XCTAssertEqual(rootless, rootless.sorted())
  }

  func testGateText_newLeaksBeforeNewCycles() {
    let outcome = GateOutcome(findings: analysis(serverHeap()).findings, baseline: Baseline())
    let kinds = outcome.renderText(baseline: "b.json").split(separator: "\n").compactMap { line -> String? in
      let word = String(line.dropFirst(2).prefix { $0 != " " })
      return line.hasPrefix("  ") && ["leak", "survivor", "cycle"].contains(word) ? word : nil
    }
    XCTAssertEqual(kinds, ["leak", "leak"] + Array(repeating: "cycle", count: kinds.count - 2))
    XCTAssertGreaterThan(kinds.count, 2)
  }
}
