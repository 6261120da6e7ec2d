import Foundation
import HeapGraph
import LeakTestSupport
import XCTest

/// What is written as it is made, never whole in memory: the JSON report in pieces, and files
/// written from pieces, give the same bytes as when they are whole.
final class StreamedOutputTests: XCTestCase {
  private var directory = ""

  override func setUpWithError() throws {
    directory = NSTemporaryDirectory() + "streamed-output-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(atPath: directory)
  }

  /// A heap whose JSON report is several megabytes: many leaked cycles and objects.
  private func analysisOfALargeHeap() -> HeapAnalysis {
    var builder = HeapSnapshot.Builder(metadata: .init(tool: "StreamedOutputTests"))
    var nextID: Int64 = 0
    func object(_ type: String) -> Int64 {
      nextID += 1
      builder.addObject(id: nextID, type: type, address: UInt64(nextID) * 0x10, size: 48)
      return nextID
    }
    let app = object("App")
    builder.addRoot(object: app, kind: "global", label: "App.shared")
    for index in 0..<20_000 {
      let owner = object("Owner\(index % 50)")
      let handler = object("closure #1 in Owner\(index % 50).start()")
      builder.addReference(from: owner, to: handler, label: "onEvent", ownership: .strong)
      builder.addReference(from: handler, to: owner, label: "capture #0: Owner", ownership: .strong)
      builder.addReference(from: app, to: object("Leaf"), label: "items[\(index)]", ownership: .strong)
    }
    return HeapAnalysis(graph: ObjectGraph(builder.snapshot))
  }

  func testWriteJSON_inPieces_isTheRenderedReport() {
    let analysis = analysisOfALargeHeap()
    var pieces: [[UInt8]] = []
    analysis.writeJSON { pieces.append(Array($0)) }
    let whole = Array(analysis.renderJSON().utf8)
    XCTAssertGreaterThan(whole.count, 3 << 20, "the report must be several pieces long")
    XCTAssertGreaterThan(pieces.count, 2)
    XCTAssertTrue(pieces.dropLast().allSatisfy { $0.count < 2 << 20 }, "no piece holds much more than a megabyte")
    XCTAssertEqual(pieces.flatMap { $0 }, whole)
  }

  func testWriteJSON_ofASmallHeap_isOnePiece() {
    let heap = TestHeap("A.b -> B; B.a -> A", roots: [])
    let analysis = HeapAnalysis(graph: heap.graph)
    var pieces: [[UInt8]] = []
    analysis.writeJSON { pieces.append(Array($0)) }
    XCTAssertEqual(pieces.count, 1)
    XCTAssertEqual(pieces.first, Array(analysis.renderJSON().utf8))
  }

  func testWriteAtomically_fromPieces_writesThemInOrder() throws {
    let path = directory + "/report.json"
    try FileBytes.writeAtomically(Array("old".utf8), to: path)
    try FileBytes.writeAtomically(to: path) { write in
      for piece in ["{", "\"a\": 1", "}\n"] { Array(piece.utf8).withUnsafeBytes(write) }
    }
    XCTAssertEqual(try FileBytes.read(path), Array("{\"a\": 1}\n".utf8))
  }

  func testWriteAtomically_fromPieces_intoADirectory_failsAndLeavesNothing() throws {
    var produced = false
    do {
      try FileBytes.writeAtomically(to: directory) { _ in produced = true }
      XCTFail("a directory must be refused")
    } catch {
      XCTAssertEqual(error.description, "\(directory): is a directory, not a file")
    }
    XCTAssertFalse(produced, "nothing is produced for a file that cannot be written")
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory), [])
  }

  func testObjectGraph_sizesAndGenerations_keepEveryValueWhateverTheirWidth() {
    var builder = HeapSnapshot.Builder()
    builder.addObject(id: 1, type: "Small", size: 48, generation: nil)
    builder.addObject(id: 2, type: "Unknown", size: nil, generation: 3)
    builder.addObject(id: 3, type: "Huge", size: 5_000_000_000, generation: -7)
    builder.addObject(id: 4, type: "Narrow", size: Int(Int32.max), generation: Int(Int32.min) + 1)
    let graph = ObjectGraph(builder.snapshot)
    XCTAssertEqual(graph.nodes.map(graph.size(of:)), [48, nil, 5_000_000_000, Int(Int32.max)])
    XCTAssertEqual(graph.nodes.map(graph.generation(of:)), [nil, 3, -7, Int(Int32.min) + 1])

    var narrow = HeapSnapshot.Builder()
    narrow.addObject(id: 1, type: "A", size: 16, generation: Int(Int32.min))
    narrow.addObject(id: 2, type: "B", size: nil, generation: nil)
    let narrowGraph = ObjectGraph(narrow.snapshot)
    XCTAssertEqual(narrowGraph.nodes.map(narrowGraph.size(of:)), [16, nil])
    XCTAssertEqual(narrowGraph.nodes.map(narrowGraph.generation(of:)), [Int(Int32.min), nil])

    var uniform = HeapSnapshot.Builder()
    for id in 1...3 { uniform.addObject(id: Int64(id), type: "C", size: 32) }
    let uniformGraph = ObjectGraph(uniform.snapshot)
    XCTAssertEqual(uniformGraph.nodes.map(uniformGraph.size(of:)), [32, 32, 32])
    XCTAssertEqual(uniformGraph.nodes.map(uniformGraph.generation(of:)), [nil, nil, nil])
  }
}
