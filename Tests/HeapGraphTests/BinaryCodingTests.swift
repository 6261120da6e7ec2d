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

  /// The process's fields, each alone and all together, in both encodings (version 5 only when
  /// one is there), truncations included; `strip` removes the id and the command line.
  func testProcessFields_roundTripInBothEncodings_andStripRemovesWhoItWas() throws {
    let base = try sampleSnapshot()
    XCTAssertEqual(base.binaryBytes()[4], 4, "no process field, no version 5")
    let variants: [(Int32?, [String]?, Int?)] = [
      (4242, nil, nil), (nil, ["/srv/Server", "--port", "8080"], nil), (nil, nil, 0), (7, [], 412),
    ]
    for (processID, arguments, milliseconds) in variants {
      var snapshot = base
      snapshot.metadata.processID = processID
      snapshot.metadata.arguments = arguments
      snapshot.metadata.captureMilliseconds = milliseconds
      let bytes = snapshot.binaryBytes()
      XCTAssertEqual(bytes[4], 5)
      XCTAssertEqual(try HeapSnapshot(binaryBytes: bytes), snapshot)
      XCTAssertEqual(try HeapSnapshot(jsonBytes: snapshot.jsonBytes()), snapshot)
      for length in stride(from: 0, to: bytes.count, by: 97) {
        XCTAssertThrowsError(try HeapSnapshot(binaryBytes: Array(bytes[..<length])), "truncated to \(length) bytes")
      }
      let stripped = snapshot.stripped()
      XCTAssertNil(stripped.metadata.processID)
      XCTAssertNil(stripped.metadata.arguments)
      XCTAssertEqual(stripped.metadata.captureMilliseconds, milliseconds)
    }
    let json = String(decoding: base.jsonBytes(), as: UTF8.self)
    for bad in ["0", "-3", "4294967296", "\"4242\""] {
      let text = json.replacingOccurrences(of: "\"metadata\": {", with: "\"metadata\": {\"processID\": \(bad), ")
      XCTAssertNotEqual(text, json)
      XCTAssertThrowsError(try HeapSnapshot(jsonBytes: Array(text.utf8)), bad)
    }
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

  /// Stacks that share frames (every test's stack ends in the same runner frames) write each
  /// frame once (version 4); frames of one pc that differ (a closure's frame renamed) stay apart.
  func testBinaryBytes_stacksSharingFrames_writeEachFrameOnce() throws {
    let runner = (0..<20).map { StackFrame(pc: UInt64(0x1000 + $0), symbol: "XCTest.runner\($0)() -> ()", file: "XCTest.swift", line: $0) }
    let renamed = StackFrame(pc: 0x1000, symbol: "closure #1 in runner0", file: "XCTest.swift", line: 0)
    var builder = HeapSnapshot.Builder(metadata: .init(tool: "t"))
    for id in 1...50 {
      let own = StackFrame(pc: UInt64(0x9000 + id), symbol: "App.make\(id)()", file: "App.swift", line: id, column: 3)
      builder.addStack(id: Int64(id), frames: [own] + (id == 50 ? [renamed] : runner))
      builder.addObject(id: Int64(id), type: "App.Feed", stack: Int64(id))
    }
    builder.addStack(id: 51, frames: [])
    let snapshot = builder.snapshot
    let bytes = snapshot.binaryBytes()
    XCTAssertEqual(Array(bytes[4..<8]), [4, 0, 0, 0], "shared frames need version 4")
    XCTAssertEqual(try HeapSnapshot(binaryBytes: bytes), snapshot)
    XCTAssertEqual(bytes.count(ofOccurrencesOf: Array("XCTest.runner7() -> ()".utf8)), 1)
    XCTAssertEqual(bytes.count(ofOccurrencesOf: Array("closure #1 in runner0".utf8)), 1)
    for length in stride(from: 0, to: bytes.count, by: 11) {
      XCTAssertThrowsError(try HeapSnapshot(binaryBytes: Array(bytes[..<length])), "truncated to \(length) bytes")
    }
  }

  /// A file of an earlier version, whose stacks hold their frames, still reads.
  func testBinaryBytes_version1WithFramesInTheStacks_reads() throws {
    var builder = HeapSnapshot.Builder(metadata: .init(tool: "t"))
    builder.addStack(id: 5, frames: [StackFrame(pc: 0x20, symbol: "main", file: "main.swift", line: 3)])
    builder.addObject(id: 7, type: "A", stack: 5)
    func int64(_ value: Int64) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
    func int32(_ value: Int32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
    func string(_ value: String) -> [UInt8] { int64(Int64(value.utf8.count)) + Array(value.utf8) }
    var bytes = Array("BDLS".utf8) + [1, 0, 0, 0] + [1] + string("t") + [0] + [0] + int64(0)
    bytes += int64(1) + string("A") + int64(0)  // type names, labels
    bytes += int64(1) + int64(7) + int64(1) + int32(0) + int64(1) + int64(0) + int64(1) + int64(-1)  // ids, types, addresses, sizes
    bytes += int64(1) + int64(Int64.min) + int64(1) + int32(0) + int64(1) + [0]  // generations, stacks, kinds
    bytes += int64(0) + int64(0) + int64(0) + int64(0) + int64(0)  // the reference columns, roots
    bytes += int64(1) + int64(5) + int64(1) + int64(0x20) + [1] + string("main") + [1] + string("main.swift") + int64(3) + int64(-1)
    XCTAssertEqual(try HeapSnapshot(binaryBytes: bytes), builder.snapshot)
  }

  /// A stack's frame outside the table is an error naming the stack, never a trap.
  func testBinaryBytes_frameIndexOutOfTheTable_isAnErrorNamingTheStack() throws {
    var builder = HeapSnapshot.Builder()
    builder.addStack(id: 9, frames: [StackFrame(pc: 0x10, symbol: "f")])
    var bytes = builder.snapshot.binaryBytes()
    // The snapshot ends with the one stack: its id, a count of one frame, and the frame's index 0.
    bytes.replaceSubrange((bytes.count - 4)..., with: withUnsafeBytes(of: Int32(1).littleEndian, Array.init))
    XCTAssertThrowsError(try HeapSnapshot(binaryBytes: bytes)) { error in
      XCTAssertTrue("\(error)".contains("stacks[0].frames[0]: index 1 is out of range (there are 1 frames)"), "\(error)")
    }
  }
}

extension Array where Element == UInt8 {
  fileprivate func count(ofOccurrencesOf needle: [UInt8]) -> Int {
    guard needle.count <= count else { return 0 }
    return (0...(count - needle.count)).filter { self[$0..<($0 + needle.count)].elementsEqual(needle) }.count
  }
}
