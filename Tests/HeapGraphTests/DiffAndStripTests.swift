import HeapGraph
import LeakTestSupport
import XCTest

final class DiffAndStripTests: XCTestCase {
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
