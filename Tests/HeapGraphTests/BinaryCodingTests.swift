import HeapGraph
import LeakTestSupport
import XCTest

/// The binary encoding (a capture child's message to its parent, and big snapshot files): a
/// faithful round trip, the documented layout, the choice by size, and an error (never a trap)
/// for every truncation.
final class BinaryCodingTests: XCTestCase {
  private func sampleSnapshot() throws -> HeapSnapshot {
    let path = directory() + "/__Snapshots__/heap.json"
    var snapshot = try HeapSnapshot(jsonBytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    snapshot.metadata.diagnostics = ["a diagnostic"]
    return snapshot
  }

  func testBinaryBytes_roundTrip_givesAnEqualSnapshot() throws {
    let snapshot = try sampleSnapshot()
    XCTAssertGreaterThan(snapshot.objectCount, 0)
    XCTAssertEqual(try HeapSnapshot(binaryBytes: snapshot.binaryBytes()), snapshot)
  }

  func testBinaryBytes_everyTruncationAndTrailingByte_isAnError() throws {
    let bytes = try sampleSnapshot().binaryBytes()
    for length in 0..<bytes.count {
      XCTAssertThrowsError(try HeapSnapshot(binaryBytes: Array(bytes[..<length])), "truncated to \(length) bytes")
    }
    XCTAssertThrowsError(try HeapSnapshot(binaryBytes: bytes + [0]))
  }

  func testEncodingChosenBySize_isBinaryFromTheThreshold() {
    var builder = HeapSnapshot.Builder()
    for id in 1..<Int64(HeapSnapshot.binaryEncodingThreshold) { builder.addObject(id: id, type: "T") }
    XCTAssertEqual(builder.snapshot.encodingChosenBySize, .json)
    XCTAssertEqual(HeapSnapshot.encoding(of: builder.snapshot.fileBytes()), .json)
    builder.addObject(id: Int64(HeapSnapshot.binaryEncodingThreshold), type: "T")
    XCTAssertEqual(builder.snapshot.encodingChosenBySize, .binary)
    XCTAssertEqual(HeapSnapshot.encoding(of: builder.snapshot.fileBytes()), .binary)
    XCTAssertEqual(HeapSnapshot.encoding(of: Array(" {\"format\"".utf8)), .json)
  }

  /// The layout Documentation/SnapshotFormat.md describes, byte for byte, for one object and one
  /// reference.
  func testBinaryBytes_layout_isTheDocumentedOne() {
    var builder = HeapSnapshot.Builder(metadata: .init(tool: "t"))
    builder.addObject(id: 7, type: "A", address: 0x10, size: 32, generation: 2, kind: .classInstance)
    builder.addReference(from: 7, to: 7, label: "me", ownership: .strong)
    func int64(_ value: Int64) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
    func int32(_ value: Int32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
    func string(_ value: String) -> [UInt8] { int64(Int64(value.utf8.count)) + Array(value.utf8) }
    var expected = Array("BDLS".utf8) + [1, 0, 0, 0]  // magic, version 1
    expected += [1] + string("t") + [0] + [0]  // tool present, createdAt and process absent
    expected += int64(0)  // diagnostics
    expected += int64(1) + string("A")  // type names
    expected += int64(1) + string("me")  // labels
    expected += int64(1) + int64(7)  // object ids
    expected += int64(1) + int32(0)  // object types
    expected += int64(1) + int64(0x10)  // addresses
    expected += int64(1) + int64(32)  // sizes
    expected += int64(1) + int64(2)  // generations
    expected += int64(1) + int32(-1)  // stacks
    expected += int64(1) + [UInt8(ObjectKind.allCases.firstIndex(of: .classInstance)! + 1)]  // kinds
    expected += int64(1) + int32(0)  // reference sources
    expected += int64(1) + int32(0)  // reference targets
    expected += int64(1) + int32(0)  // reference labels
    expected += int64(1) + [UInt8(Ownership.allCases.firstIndex(of: .strong)!)]  // ownerships
    expected += int64(0) + int64(0)  // roots, stacks
    XCTAssertEqual(builder.snapshot.fileBytes(.binary), expected)
  }
}
