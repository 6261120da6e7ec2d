import HeapGraph
import XCTest

/// Typed diagnostics in the snapshot: their kinds and fields survive both encodings, snapshots
/// written before they existed still read, and their sentences stay where old readers find them.
final class CaptureDiagnosticTests: XCTestCase {
  private let typed: [CaptureDiagnostic] = [
    CaptureDiagnostic(
      kind: .captureFailed, message: "the capture process exited with status 3 without sending its result; captured again", count: 1),
    UnbalancedRetain(typeName: "Retains.DroppedRetain", address: 0x55d1_c2a3_e8f0, count: 2).diagnostic,
    CaptureDiagnostic(message: "a sentence without a record"),
    CaptureDiagnostic(kind: "a-kind-of-a-later-version", message: "kept as it is", typeName: "App.Feed"),
    CaptureDiagnostic(kind: .objectLimit, message: "the search stopped after 3 objects (Configuration.maxObjects)", count: 3),
  ]

  private func snapshot(diagnostics: [CaptureDiagnostic]) -> HeapSnapshot {
    var builder = HeapSnapshot.Builder(metadata: .init(tool: "test"))
    builder.addObject(id: 1, type: "Retains.DroppedRetain", address: 0x55d1_c2a3_e8f0)
    var snapshot = builder.snapshot
    snapshot.metadata.diagnosticRecords = diagnostics
    return snapshot
  }

  // MARK: - Round trips

  func testDiagnosticRecords_jsonRoundTrip_keepsKindsAndFields() throws {
    let snapshot = snapshot(diagnostics: typed)
    let read = try HeapSnapshot(jsonBytes: snapshot.jsonBytes())
    XCTAssertEqual(read.metadata.diagnosticRecords, typed)
    XCTAssertEqual(read, snapshot)
  }

  func testDiagnosticRecords_binaryRoundTrip_keepsKindsAndFields() throws {
    let snapshot = snapshot(diagnostics: typed)
    let bytes = snapshot.binaryBytes()
    XCTAssertEqual(Array(bytes[4..<8]), [2, 0, 0, 0], "records need version 2 of the binary encoding")
    XCTAssertEqual(try HeapSnapshot(binaryBytes: bytes).metadata.diagnosticRecords, typed)
    XCTAssertEqual(try HeapSnapshot(binaryBytes: bytes), snapshot)
    for length in 0..<bytes.count {
      XCTAssertThrowsError(try HeapSnapshot(binaryBytes: Array(bytes[..<length])), "truncated to \(length) bytes")
    }
  }

  /// The JSON keeps every sentence in `diagnostics`, for readers that know no records, and the
  /// records beside them, one per sentence.
  func testJSON_keepsTheSentencesForOldReaders() throws {
    let text = String(decoding: snapshot(diagnostics: typed).jsonBytes(), as: UTF8.self)
    XCTAssertTrue(
      text.contains(
        """
        "diagnostics": [
            "the capture process exited with status 3 without sending its result; captured again",
        """), text)
    XCTAssertTrue(
      text.contains(
        """
        "diagnosticRecords": [
            {"kind": "capture-failed", "count": 1},
            {"kind": "unbalanced-retain", "type": "Retains.DroppedRetain", "address": "0x55d1c2a3e8f0", "count": 2},
            {},
            {"kind": "a-kind-of-a-later-version", "type": "App.Feed"},
            {"kind": "object-limit", "count": 3}
          ]},
        """), text)
  }

  // MARK: - Old snapshots

  func testOldJSON_withoutRecords_readsSentencesWithoutKinds() throws {
    let json = """
      {"format": "swift-heap-snapshot", "version": 1,
       "metadata": {"diagnostics": ["the capture process exited with status 3 without sending its result; captured again"]},
       "objects": [], "references": []}
      """
    let snapshot = try HeapSnapshot(jsonBytes: Array(json.utf8))
    XCTAssertEqual(
      snapshot.metadata.diagnosticRecords,
      [CaptureDiagnostic(message: "the capture process exited with status 3 without sending its result; captured again")])
    XCTAssertNil(snapshot.metadata.diagnosticRecords[0].kind, "an old sentence is never read for its kind")
  }

  /// A snapshot whose diagnostics have no records is written as version 1 of the binary
  /// encoding, byte for byte what readers of version 1 read.
  func testBinary_withoutRecords_isVersion1AndReads() throws {
    let snapshot = snapshot(diagnostics: [CaptureDiagnostic(message: "a diagnostic")])
    let bytes = snapshot.binaryBytes()
    XCTAssertEqual(Array(bytes[4..<8]), [1, 0, 0, 0])
    XCTAssertEqual(try HeapSnapshot(binaryBytes: bytes), snapshot)
  }

  func testJSON_recordsThatDoNotMatchTheSentences_isAnError() {
    let json = """
      {"format": "swift-heap-snapshot", "version": 1,
       "metadata": {"diagnosticRecords": [{"kind": "object-limit"}], "diagnostics": ["one", "two"]},
       "objects": [], "references": []}
      """
    XCTAssertThrowsError(try HeapSnapshot(jsonBytes: Array(json.utf8))) { error in
      XCTAssertTrue("\(error)".contains("diagnosticRecords has 1 records for 2 diagnostics"), "\(error)")
    }
  }

  // MARK: - The sentences as an array

  /// Appending sentences keeps the records of the diagnostics before them.
  func testDiagnostics_appendingSentences_keepsTheRecordsBefore() {
    var metadata = HeapSnapshot.Metadata()
    metadata.diagnosticRecords = Array(typed.prefix(2))
    metadata.diagnostics += ["a note"]
    XCTAssertEqual(metadata.diagnosticRecords, Array(typed.prefix(2)) + [CaptureDiagnostic(message: "a note")])
    XCTAssertEqual(metadata.diagnostics, typed.prefix(2).map(\.message) + ["a note"])
  }
}
