import HeapGraph
import LeakTestSupport
import XCTest

/// The rendered reports: golden files, and the same bytes whatever the input order.
final class CycleReportTests: XCTestCase {
  /// A heap with the shapes a report must show: a closure cycle with allocation sites, a
  /// self-cycle, two identical components, a dense component over the cap, a weak-only pair and
  /// a ring longer than the bound.
  private func sampleSnapshot(shuffledWith seed: UInt64? = nil) -> HeapSnapshot {
    struct Object {
      var id: Int64
      var type: String
      var address: UInt64
      var stack: Int64?
    }
    var objects: [Object] = [
      Object(id: 1, type: "MyApp.Feed", address: 0x7f3a10, stack: 1),
      Object(id: 2, type: "closure #1 in MyApp.Feed.load()", address: 0x7f3b40, stack: 2),
      Object(id: 3, type: "MyApp.Cache", address: 0x7f4000),
      Object(id: 4, type: "MyApp.Parent", address: 0x8000),
      Object(id: 5, type: "MyApp.Child", address: 0x8100),
      Object(id: 6, type: "MyApp.Parent", address: 0x9000),
      Object(id: 7, type: "MyApp.Child", address: 0x9100),
      Object(id: 8, type: "MyApp.Delegate", address: 0xa000),
      Object(id: 9, type: "MyApp.View", address: 0xa100),
    ]
    var references: [HeapSnapshot.Reference] = [
      .init(from: 1, to: 2, label: "onUpdate", ownership: .strong),
      .init(from: 2, to: 1, label: "capture #0: Feed", ownership: .strong),
      .init(from: 3, to: 3, label: "entries[\"self\"]", ownership: .strong),
      .init(from: 4, to: 5, label: "child", ownership: .strong),
      .init(from: 5, to: 4, label: "parent", ownership: .strong),
      .init(from: 6, to: 7, label: "child", ownership: .strong),
      .init(from: 7, to: 6, label: "parent", ownership: .strong),
      .init(from: 9, to: 8, label: "delegate", ownership: .weak),
      .init(from: 8, to: 9, label: "view", ownership: .strong),
    ]
    for index in 0..<5 {  // a dense component: the complete digraph on 5 nodes (84 cycles)
      objects.append(Object(id: 100 + Int64(index), type: "MyApp.Mesh", address: 0x10000 + UInt64(index) * 0x100))
    }
    for a in 0..<5 {
      for b in 0..<5 where a != b {
        references.append(.init(from: 100 + Int64(a), to: 100 + Int64(b), label: "peer[\(b)]", ownership: .strong))
      }
    }
    for index in 0..<25 {  // a ring longer than the default bound
      objects.append(Object(id: 200 + Int64(index), type: "MyApp.Ring", address: 0x20000 + UInt64(index) * 0x100))
      references.append(.init(from: 200 + Int64(index), to: 200 + Int64((index + 1) % 25), label: "next", ownership: .strong))
    }
    if let seed {
      var random = SeededGenerator(seed: seed)
      objects.shuffle(using: &random)
      references.shuffle(using: &random)
    }
    var builder = HeapSnapshot.Builder(metadata: .init(tool: "CycleReportTests", createdAt: "2026-11-22T10:00:00Z", process: "Sample"))
    builder.addStack(
      id: 1,
      frames: [
        StackFrame(pc: 0x55d0c1, symbol: "swift_allocObject"),
        StackFrame(pc: 0x55d0c8, symbol: "MyApp.makeFeed() -> MyApp.Feed", file: "Feed.swift", line: 12, column: 15),
      ])
    builder.addStack(id: 2, frames: [StackFrame(pc: 0x55d100, symbol: "MyApp.Feed.load() -> ()", file: "Feed.swift", line: 30)])
    for object in objects {
      builder.addObject(id: object.id, type: object.type, address: object.address, stack: object.stack)
    }
    for reference in references {
      builder.addReference(from: reference.from, to: reference.to, label: reference.label, ownership: reference.ownership)
    }
    return builder.snapshot
  }

  private func analysis(_ snapshot: HeapSnapshot) -> HeapAnalysis {
    HeapAnalysis(graph: ObjectGraph(snapshot), options: .init(cycles: .init(maxCyclesPerComponent: 4)))
  }

  func testRenderText_sampleHeap_matchesGoldenFile() {
    assertMatchesGolden(analysis(sampleSnapshot()).renderText(), named: "sample-heap.txt")
  }

  func testRenderJSON_sampleHeap_matchesGoldenFile() {
    assertMatchesGolden(analysis(sampleSnapshot()).renderJSON(), named: "sample-heap.json")
  }

  func testRenderText_sevenNodeExample_matchesGoldenFile() throws {
    let path = directory() + "/../../Examples/Snapshots/fb-seven-nodes.json"
    let snapshot = try HeapSnapshot(jsonBytes: FileBytes.read(path))
    let analysis = HeapAnalysis(graph: ObjectGraph(snapshot))
    XCTAssertEqual(analysis.cycles.cycles.count, 3)
    assertMatchesGolden(analysis.renderText(), named: "fb-seven-nodes.txt")
    assertMatchesGolden(analysis.renderJSON(), named: "fb-seven-nodes.json")
  }

  func testRenderers_shuffledInput_giveIdenticalBytes() throws {
    let expected = analysis(sampleSnapshot())
    for seed in 1...20 as ClosedRange<UInt64> {
      let shuffled = sampleSnapshot(shuffledWith: seed)
      // Through the file format too, as the CLI reads it.
      let reread = try HeapSnapshot(jsonBytes: shuffled.jsonBytes())
      let actual = analysis(reread)
      XCTAssertEqual(actual.cycles, expected.cycles, "seed \(seed)")
      XCTAssertEqual(actual.renderText(), expected.renderText(), "seed \(seed)")
      XCTAssertEqual(actual.renderJSON(), expected.renderJSON(), "seed \(seed)")
    }
  }

  func testRenderJSON_isValidJSONWithTheDocumentedFields() throws {
    let json = analysis(sampleSnapshot()).renderJSON()
    let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    XCTAssertEqual(object["format"] as? String, "swift-leak-report")
    XCTAssertEqual(object["version"] as? Int, 1)
    let summary = try XCTUnwrap(object["summary"] as? [String: Any])
    XCTAssertEqual(summary["cyclesFound"] as? Int, 1 + 1 + 1 + 1 + 84)
    let components = try XCTUnwrap(object["components"] as? [[String: Any]])
    let capped = components.filter { ($0["cyclesNotListed"] as? Int ?? 0) > 0 }
    XCTAssertEqual(capped.count, 1, "the dense component is listed as capped")
    XCTAssertEqual(capped.first?["cyclesNotListed"] as? Int, 80)
    let cycles = try XCTUnwrap(object["cycles"] as? [[String: Any]])
    let closure = try XCTUnwrap(cycles.first { ($0["description"] as? String)?.contains("closure") ?? false })
    let elements = try XCTUnwrap(closure["elements"] as? [[String: Any]])
    XCTAssertEqual(elements.map { $0["object"] as? Int }, [1, 2])
    XCTAssertEqual(elements.map { $0["reference"] as? String }, ["onUpdate", "capture #0: Feed"])
    XCTAssertNotNil(closure["fingerprint"] as? String)
  }
}
