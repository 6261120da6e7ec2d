import HeapGraph
import LeakTestSupport
import XCTest

/// `HeapDiff` on two synthetic snapshots of one program: a cache that gained three responses,
/// a buffer that grew in place, a session and a leaked pair of nodes that are new, a request and
/// a leaked orphan that are gone, and one of two feeds released.
final class HeapDiffTests: XCTestCase {
  // MARK: - Per type

  func testHeapDiff_types_haveCountsBytesAndDeltas_mostBytesAddedFirst() {
    let diff = cacheDiff()
    XCTAssertEqual(
      diff.types.map(describe),
      [
        "grown App.Response 2->5 (+3) 96->240 (+144)",
        "grown App.Buffer 1->1 (+0) 100->200 (+100)",
        "new App.Node 0->2 (+2) 0->32 (+32)",
        "new App.Session 0->1 (+1) 0->24 (+24)",
        "gone App.Orphan 1->0 (-1) 8->0 (-8)",
        "gone App.Request 1->0 (-1) 16->0 (-16)",
        "shrunk App.Feed 2->1 (-1) 128->64 (-64)",
      ])
    XCTAssertEqual(diff.oldTotal, HeapDiff.Amount(count: 8, bytes: 380))
    XCTAssertEqual(diff.newTotal, HeapDiff.Amount(count: 11, bytes: 592))
    XCTAssertTrue(diff.hasGrowth)
  }

  // MARK: - Per retaining path

  func testHeapDiff_paths_newGoneAndGrown_withSubscriptsCollapsed() {
    XCTAssertEqual(
      cacheDiff().paths.map(describe),
      [
        "grown global App.Cache.shared: App.Cache.entries[*] -> App.Response 2->5 (+3) 96->240 (+144)",
        "new global App.session: App.Session 0->1 (+1) 0->24 (+24)",
        "grown global App.Cache.shared: App.Cache 1->1 (+0) 128->272 (+144)",
        "grown global App.buffer: App.Buffer 1->1 (+0) 100->200 (+100)",
        "gone stack thread 1: App.Request 1->0 (-1) 16->0 (-16)",
        "shrunk global App.feeds[*]: App.Feed 2->1 (-1) 128->64 (-64)",
      ])
  }

  // MARK: - Allocated between

  func testHeapDiff_allocatedBetween_byGeneration_groupsByTypeAndLine() {
    let between = cacheDiff().allocatedBetween
    XCTAssertEqual(between.rule, .identityAndGeneration(after: 1))
    XCTAssertEqual(between.total, HeapDiff.Amount(count: 6, bytes: 200))
    XCTAssertEqual(
      between.byType.map { "\($0.name) \($0.count) \($0.bytes)" }, ["App.Response 3 144", "App.Node 2 32", "App.Session 1 24"])
    XCTAssertEqual(
      between.bySite.map { "\($0.site?.sourceLocation ?? "-") \($0.count) \($0.bytes)" }, ["Server.swift:12 3 144", "Server.swift:20 1 24"])
    XCTAssertEqual(between.withoutSite, HeapDiff.Amount(count: 2, bytes: 32))
  }

  /// Without generations, an object is new when the earlier snapshot has no object of its type
  /// at its address: the buffer that grew in place is not, an object at a freed address is.
  func testHeapDiff_allocatedBetween_withoutGenerations_byAddressAndType() {
    let diff = cacheDiff(generations: false, reuseRequestAddress: true)
    let between = diff.allocatedBetween
    XCTAssertEqual(between.rule, .identity)
    XCTAssertEqual(
      between.byType.map { "\($0.name) \($0.count) \($0.bytes)" },
      ["App.Response 3 144", "App.Node 2 32", "App.Session 1 24", "App.Token 1 16"])
    XCTAssertEqual(between.total, HeapDiff.Amount(count: 7, bytes: 216))
  }

  /// An address freed and reused by an object of the same type: new by its generation when one
  /// was marked between the snapshots, the same object by address and type otherwise.
  func testHeapDiff_allocatedBetween_reusedAddress_isNewOnlyByGeneration() {
    func graph(id: Int64, generation: Int) -> ObjectGraph {
      var builder = HeapSnapshot.Builder()
      builder.addObject(id: id, type: "App.Request", address: 0x1400, size: 16, generation: generation)
      builder.addRoot(object: id, kind: .stack, label: "thread 1")
      return ObjectGraph(builder.snapshot)
    }
    let marked = ObjectsAllocatedBetween(old: graph(id: 1, generation: 1), new: graph(id: 2, generation: 2))
    XCTAssertEqual(marked.rule, .identityAndGeneration(after: 1))
    XCTAssertEqual(marked.byType.map { "\($0.name) \($0.count)" }, ["App.Request 1"])
    let unmarked = ObjectsAllocatedBetween(old: graph(id: 1, generation: 0), new: graph(id: 2, generation: 0))
    XCTAssertEqual(unmarked.rule, .identity)
    XCTAssertEqual(unmarked.total, .none)
  }

  // MARK: - Findings

  func testHeapDiff_findings_newAndGone_byFingerprint() {
    XCTAssertEqual(
      cacheDiff().findings.map { "\($0.status.rawValue) \($0.subject.kind.rawValue) \($0.subject.summary) \($0.countDelta)" },
      [
        "new cycle App.Node.next -> App.Node.previous -> App.Node 1", "new leak App.Node.next -> App.Node.previous -> App.Node 1",
        "gone cycle App.Orphan.me -> App.Orphan -1", "gone leak App.Orphan.me -> App.Orphan -1",
      ])
  }

  /// A leak repeated per iteration: the same fingerprint with more instances.
  func testHeapDiff_repeatedLeak_growsItsFinding() {
    let old = TestHeap("App.feed -> Feed#1; Feed#1.onUpdate -> Closure#1; Closure#1.capture -> Feed#1", roots: ["App"])
    let new = TestHeap(
      "App.feed -> Feed#1; Feed#1.onUpdate -> Closure#1; Closure#1.capture -> Feed#1; "
        + "Feed#2.onUpdate -> Closure#2; Closure#2.capture -> Feed#2; Feed#3.onUpdate -> Closure#3; Closure#3.capture -> Feed#3",
      roots: ["App"])
    let diff = HeapDiff(old: HeapAnalysis(graph: old.graph), new: HeapAnalysis(graph: new.graph))
    XCTAssertEqual(
      diff.findings.map { "\($0.status.rawValue) \($0.subject.kind.rawValue) \($0.before.count)->\($0.after.count)" },
      ["grown cycle 1->3", "new leak 0->2"])
    XCTAssertEqual(diff.types.map { "\($0.status.rawValue) \($0.subject) \($0.countDelta)" }, ["grown Closure 2", "grown Feed 2"])
  }

  func testHeapDiff_sameSnapshot_changesNothing() {
    let snapshot = Self.snapshot(before: true, generations: true, reuseRequestAddress: false)
    let analysis = HeapAnalysis(graph: ObjectGraph(snapshot))
    let diff = HeapDiff(old: analysis, new: analysis)
    XCTAssertEqual(diff.types.count + diff.paths.count + diff.findings.count + diff.allocatedBetween.total.count, 0)
    XCTAssertFalse(diff.hasGrowth)
    XCTAssertEqual(diff.renderText(old: "a.json", new: "a.json"), "No change from a.json to a.json.\n")
  }

  /// Only fewer objects: not growth (`diff` exits with 0).
  func testHeapDiff_onlyShrinking_isNoGrowth() {
    let old = TestHeap("App.feeds[0] -> Feed#1; App.feeds[1] -> Feed#2", roots: ["App"])
    let new = TestHeap("App.feeds[0] -> Feed#1", roots: ["App"])
    let diff = HeapDiff(old: HeapAnalysis(graph: old.graph), new: HeapAnalysis(graph: new.graph))
    XCTAssertEqual(diff.types.map { "\($0.status.rawValue) \($0.subject) \($0.countDelta)" }, ["shrunk Feed -1"])
    XCTAssertEqual(
      diff.paths.map { "\($0.status.rawValue) \($0.subject.description) \($0.countDelta)" }, ["shrunk global App: App.feeds[*] -> Feed -1"])
    XCTAssertFalse(diff.hasGrowth)
  }

  // MARK: - Renderings

  func testHeapDiff_text_matchesGoldenFile() {
    assertMatchesGolden(cacheDiff().renderText(old: "before.json", new: "after.json"), named: "heap-diff.txt")
    assertMatchesGolden(cacheDiff().renderText(old: "before.json", new: "after.json", limit: 2), named: "heap-diff-limited.txt")
  }

  func testHeapDiff_json_matchesGoldenFile() {
    assertMatchesGolden(cacheDiff().renderJSON(old: "before.json", new: "after.json"), named: "heap-diff.json")
  }

  func testHeapDiff_html_hasAFilterableSortableTablePerSection() {
    let html = cacheDiff().renderHTML(old: "before.json", new: "after.json")
    for table in ["types-table", "paths-table", "allocated-types", "allocated-sites", "findings-table"] {
      XCTAssertTrue(html.contains("<table id=\"\(table)\" class=\"sortable\">"), table)
      XCTAssertTrue(html.contains("<input type=\"search\" class=\"filter\" data-table=\"\(table)\""), table)
    }
    XCTAssertTrue(html.contains("<span data-value=\"3\">+3</span>"), "the responses' delta")
  }

  // MARK: - Fixtures

  private func describe<Subject>(_ change: HeapDiff.Change<Subject>) -> String {
    let name = (change.subject as? HeapTally.Path)?.description ?? "\(change.subject)"
    return
      "\(change.status.rawValue) \(name) \(change.before.count)->\(change.after.count) (\(change.countDelta >= 0 ? "+" : "")\(change.countDelta)) "
      + "\(change.before.bytes)->\(change.after.bytes) (\(change.byteDelta >= 0 ? "+" : "")\(change.byteDelta))"
  }

  private func cacheDiff(generations: Bool = true, reuseRequestAddress: Bool = false) -> HeapDiff {
    HeapDiff(
      old: HeapAnalysis(graph: ObjectGraph(Self.snapshot(before: true, generations: generations, reuseRequestAddress: false))),
      new: HeapAnalysis(
        graph: ObjectGraph(Self.snapshot(before: false, generations: generations, reuseRequestAddress: reuseRequestAddress))))
  }

  /// The earlier snapshot (`before`, generation 1) or the later one (new objects in generation 2).
  private static func snapshot(before: Bool, generations: Bool, reuseRequestAddress: Bool) -> HeapSnapshot {
    var builder = HeapSnapshot.Builder()
    builder.addStack(id: 1, frames: [StackFrame(symbol: "App.Server.handle() -> ()", file: "Server.swift", line: 12)])
    builder.addStack(id: 2, frames: [StackFrame(symbol: "App.Server.open() -> ()", file: "Server.swift", line: 20)])
    func add(_ id: Int64, _ type: String, size: Int, generation: Int, stack: Int64? = nil) {
      builder.addObject(
        id: id, type: type, address: UInt64(id) * 0x100, size: size, generation: generations ? generation : nil, stack: stack)
    }
    add(1, "App.Cache", size: 32, generation: 1)
    builder.addRoot(object: 1, kind: .global, label: "App.Cache.shared")
    let responses: [Int] = before ? [10, 11] : [10, 11, 12, 13, 14]
    for (index, id) in responses.enumerated() {
      add(Int64(id), "App.Response", size: 48, generation: id < 12 ? 1 : 2, stack: 1)
      builder.addReference(from: 1, to: Int64(id), label: "entries[\(index)]", ownership: .strong)
    }
    add(40, "App.Buffer", size: before ? 100 : 200, generation: 1)
    builder.addRoot(object: 40, kind: .global, label: "App.buffer")
    let feeds: [Int] = before ? [30, 31] : [30]
    for id in feeds {
      add(Int64(id), "App.Feed", size: 64, generation: 1)
      builder.addRoot(object: Int64(id), kind: .global, label: "App.feeds[\(id - 30)]")
    }
    if before {
      add(20, "App.Request", size: 16, generation: 1)
      builder.addRoot(object: 20, kind: .stack, label: "thread 1")
      add(70, "App.Orphan", size: 8, generation: 1)
      builder.addReference(from: 70, to: 70, label: "me", ownership: .strong)
    } else {
      add(50, "App.Session", size: 24, generation: 2, stack: 2)
      builder.addRoot(object: 50, kind: .global, label: "App.session")
      add(60, "App.Node", size: 16, generation: 2)
      add(61, "App.Node", size: 16, generation: 2)
      builder.addReference(from: 60, to: 61, label: "next", ownership: .strong)
      builder.addReference(from: 61, to: 60, label: "previous", ownership: .strong)
      if reuseRequestAddress {
        // The request's address, freed and reused by an object of another type.
        builder.addObject(id: 80, type: "App.Token", address: 20 * 0x100, size: 16)
        builder.addRoot(object: 80, kind: .stack, label: "thread 1")
      }
    }
    return builder.snapshot
  }
}
