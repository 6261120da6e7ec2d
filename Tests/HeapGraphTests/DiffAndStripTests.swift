import HeapGraph
import LeakTestSupport
import XCTest

final class DiffAndStripTests: XCTestCase {
  func testDiff_growingTypeAndRepeatedLeak_areReported() {
    let old = TestHeap("App.feed -> Feed#1; Feed#1.onUpdate -> Closure#1; Closure#1.capture -> Feed#1", roots: ["App"])
    let new = TestHeap(
      "App.feed -> Feed#1; Feed#1.onUpdate -> Closure#1; Closure#1.capture -> Feed#1; "
        + "Feed#2.onUpdate -> Closure#2; Closure#2.capture -> Feed#2; Feed#3.onUpdate -> Closure#3; Closure#3.capture -> Feed#3",
      roots: ["App"])
    let diff = HeapDiff(old: HeapAnalysis(graph: old.graph), new: HeapAnalysis(graph: new.graph))
    XCTAssertTrue(diff.hasGrowth)
    XCTAssertEqual(diff.growingTypes.map { "\($0.name) \($0.before)->\($0.after)" }, ["Closure 1->3", "Feed 1->3"])
    XCTAssertTrue(
      diff.growingFindings.contains { $0.name.hasPrefix("leak: ") && $0.before == 0 && $0.after == 2 }, "\(diff.growingFindings)")
    XCTAssertTrue(
      diff.growingFindings.contains { $0.name.hasPrefix("cycle: ") && $0.before == 1 && $0.after == 3 }, "\(diff.growingFindings)")
    XCTAssertFalse(HeapDiff(old: HeapAnalysis(graph: new.graph), new: HeapAnalysis(graph: new.graph)).hasGrowth)
  }

  /// LeakCanary's heap-growth question: which retaining path accumulates the new objects?
  func testDiff_growingRetainingPaths_collapseSubscriptsAndNameTheRoot() {
    let old = TestHeap(
      "App.feeds[0] -> Feed#1; App.feeds[1] -> Feed#2; App.cache -> Cache; Cache.entries[\"a\"] -> Image#1", roots: ["App"])
    let new = TestHeap(
      "App.feeds[0] -> Feed#1; App.feeds[1] -> Feed#2; App.feeds[2] -> Feed#3; App.feeds[3] -> Feed#4; App.feeds[4] -> Feed#5; "
        + "App.cache -> Cache; Cache.entries[\"a\"] -> Image#1; Cache.entries[\"b\"] -> Image#2; Cache.last -> Feed#6",
      roots: ["App"])
    let diff = HeapDiff(old: HeapAnalysis(graph: old.graph), new: HeapAnalysis(graph: new.graph))
    XCTAssertEqual(
      diff.growingPaths.map { "\($0.name) \($0.before)->\($0.after)" },
      [
        "global App: App.feeds[*] -> Feed 2->5", "global App: App.cache -> Cache.entries[*] -> Image 1->2",
        "global App: App.cache -> Cache.last -> Feed 0->1",
      ])
    XCTAssertTrue(
      diff.renderText(old: "a", new: "b").contains("Retaining paths that grew:\n  global App: App.feeds[*] -> Feed: 2 -> 5 (+3)\n"))
    XCTAssertEqual(HeapDiff(old: HeapAnalysis(graph: old.graph), new: HeapAnalysis(graph: new.graph), maxPaths: 1).growingPaths.count, 1)
    XCTAssertEqual(HeapDiff(old: HeapAnalysis(graph: new.graph), new: HeapAnalysis(graph: new.graph)).growingPaths, [])
  }

  func testDiff_longRetainingPath_isElidedInTheMiddle() {
    let chain = (1...11).map { "N#\($0).next -> N#\($0 + 1)" }.joined(separator: "; ")
    let old = TestHeap("App.head -> N#1", roots: ["App"])
    let new = TestHeap("App.head -> N#1; " + chain, roots: ["App"])
    let deepest = HeapDiff(old: HeapAnalysis(graph: old.graph), new: HeapAnalysis(graph: new.graph), maxPaths: 100).growingPaths.map(\.name)
      .max { $0.count < $1.count }
    XCTAssertEqual(deepest, "global App: App.head -> N.next -> N.next -> … 6 more … -> N.next -> N.next -> N.next -> N")
  }

  func testStrip_removesPrivateDetailsAndKeepsTheAnalysis() throws {
    var builder = HeapSnapshot.Builder(metadata: .init(tool: "t", createdAt: "2026-11-22T10:00:00Z", process: "Secret"))
    builder.addStack(id: 1, frames: [StackFrame(pc: 0x55d0, symbol: "MyApp.make()", file: "/home/ada/secret/Feed.swift", line: 12)])
    builder.addObject(id: 1, type: "MyApp.Feed", address: 0x1000, stack: 1)
    builder.addReference(from: 1, to: 1, label: "me", ownership: .strong)
    let snapshot = builder.snapshot
    let stripped = snapshot.stripped()
    XCTAssertNil(stripped.metadata.process)
    XCTAssertNil(stripped.metadata.createdAt)
    XCTAssertEqual(stripped.stacks.first?.frames.first?.file, "Feed.swift")
    XCTAssertNil(stripped.stacks.first?.frames.first?.pc)
    XCTAssertEqual(stripped.stacks.first?.frames.first?.line, 12)
    XCTAssertNil(snapshot.stripped(keepingFileNames: false).stacks.first?.frames.first?.file)
    XCTAssertEqual(
      CycleFinder().findCycles(in: ObjectGraph(stripped)).cycles.map(\.fingerprint),
      CycleFinder().findCycles(in: ObjectGraph(snapshot)).cycles.map(\.fingerprint))
    XCTAssertFalse(String(decoding: stripped.jsonBytes(), as: UTF8.self).contains("secret"))
  }

  func testDOT_hasOneClusterPerComponentWithLabelledEdges() {
    let heap = TestHeap("A.b -> B; B.a -> A; C.me -> C")
    let dot = CycleFinder().findCycles(in: heap.graph).renderDOT()
    XCTAssertTrue(dot.hasPrefix("digraph \"retain cycles\" {"))
    XCTAssertEqual(dot.components(separatedBy: "subgraph cluster_").count - 1, 2)
    XCTAssertTrue(dot.contains("\"o1\" -> \"o2\" [label=\"b\"];"), dot)
    XCTAssertTrue(dot.contains("\"o3\" -> \"o3\" [label=\"me\"];"), dot)
  }
}
