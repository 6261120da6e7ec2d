import Foundation
import HeapGraph
import LeakTestSupport
import XCTest

/// A JSON snapshot read as its file streams (``HeapSnapshot/init(streamingJSON:)``) is the
/// snapshot read from its bytes held whole; whatever the whole read refuses, the streaming read
/// refuses too (the command-line tool then reads the file whole to name the problem).
final class StreamedJSONDecodingTests: XCTestCase {
  private var directory = ""

  override func setUpWithError() throws {
    directory = NSTemporaryDirectory() + "streamed-json-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(atPath: directory)
  }

  private func streamed(_ bytes: [UInt8]) throws -> HeapSnapshot? {
    let path = directory + "/heap.json"
    try FileBytes.writeAtomically(bytes, to: path)
    let input = try XCTUnwrap(try FileInput(regularFileAt: path))
    return try? HeapSnapshot(streamingJSON: input)
  }

  /// A snapshot whose JSON is several windows long, with strings longer than a window, escapes,
  /// text outside ASCII, and stack ids a 32-bit column cannot hold.
  private func largeSnapshot() -> HeapSnapshot {
    var builder = HeapSnapshot.Builder(
      metadata: .init(tool: "t", process: "p \"quoted\" \u{1F600} " + String(repeating: "x", count: 3 << 20)))
    for stackID in [-5, 5_000_000_000, 7] as [Int64] {
      builder.addStack(id: stackID, frames: [StackFrame(pc: 0x10, symbol: "f\\n\(stackID)", file: "é.swift", line: 3)])
    }
    for id in 1...Int64(60_000) {
      builder.addObject(
        id: id, type: id % 11 == 0 ? "Ünïcode.T\(id % 7)" : "T\(id % 7)", address: UInt64(id) * 16, size: Int(id % 100),
        generation: id % 3 == 0 ? Int(id % 5) : nil, stack: [nil, -5, 5_000_000_000, 7][Int(id % 4)],
        kind: id % 2 == 0 ? .classInstance : nil)
    }
    for id in 1..<Int64(60_000) {
      builder.addReference(
        from: id, to: id + 1, label: id % 9 == 0 ? "items[\"k\\\(id)\"]" : "next", ownership: id % 5 == 0 ? .weak : .strong)
    }
    builder.addRoot(object: 1, kind: "global", label: "head")
    return builder.snapshot
  }

  func testStreamingJSON_ofALargeSnapshot_isTheSnapshot() throws {
    let snapshot = largeSnapshot()
    let bytes = snapshot.jsonBytes()
    XCTAssertGreaterThan(bytes.count, 8 << 20)
    XCTAssertEqual(try HeapSnapshot(jsonBytes: bytes), snapshot, "the whole read, with wide stack ids")
    XCTAssertEqual(try streamed(bytes), snapshot)
    XCTAssertEqual(try streamed([0xEF, 0xBB, 0xBF] + bytes), snapshot, "after a byte order mark")
  }

  func testStreamingJSON_referencesBeforeObjects_isRefused_andTheWholeReadResolvesThem() throws {
    let text =
      #"{"format": "swift-heap-snapshot", "version": 1, "references": [{"from": 1, "to": 2, "ownership": "strong"}], "objects": [{"id": 1, "type": "A"}, {"id": 2, "type": "B"}]}"#
    XCTAssertNil(try streamed(Array(text.utf8)))
    XCTAssertEqual(try HeapSnapshot(jsonBytes: Array(text.utf8)).referenceCount, 1)
  }

  func testStreamingJSON_truncatedOrDamaged_isRefusedWheneverTheWholeReadRefusesIt() throws {
    var builder = HeapSnapshot.Builder(metadata: .init(tool: "t"))
    builder.addStack(id: 9, frames: [StackFrame(pc: 1, symbol: "s")])
    for id in 1...Int64(40) { builder.addObject(id: id, type: "T\(id % 3)", size: 8, stack: id % 2 == 0 ? 9 : nil) }
    for id in 1..<Int64(40) { builder.addReference(from: id, to: id + 1, label: "n", ownership: .strong) }
    builder.addRoot(object: 1, kind: "global")
    let bytes = builder.snapshot.jsonBytes()
    var random = SeededGenerator(seed: 11)
    var inputs: [[UInt8]] = (0..<bytes.count).map { Array(bytes[..<$0]) }
    for _ in 0..<600 {
      var damaged = bytes
      damaged[Int.random(in: 0..<bytes.count, using: &random)] =
        [UInt8(ascii: "}"), UInt8(ascii: ","), UInt8(ascii: "9"), 0x00, UInt8(ascii: "\"")][Int.random(in: 0..<5, using: &random)]
      inputs.append(damaged)
    }
    var refused = 0
    for input in inputs {
      let whole = try? HeapSnapshot(jsonBytes: input)
      let stream = try streamed(input)
      if let stream { XCTAssertEqual(stream, whole, "a streaming read must give what the whole read gives") }
      if whole == nil {
        XCTAssertNil(stream, "the whole read refuses \(String(decoding: input, as: UTF8.self))")
        refused += 1
      }
    }
    XCTAssertGreaterThan(refused, bytes.count)
  }
}
