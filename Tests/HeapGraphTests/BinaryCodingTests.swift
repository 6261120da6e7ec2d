import HeapGraph
import LeakTestSupport
import XCTest

/// The binary form a capture child sends its parent: a faithful round trip, and an error (never
/// a trap) for every truncation.
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
}
