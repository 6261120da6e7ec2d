import HeapGraph
import LeakTestSupport
import XCTest

/// The inputs under `Fuzz/Regressions/` that once failed the fuzz target, fed through the
/// public API as the target feeds them (without the mode byte), with the invariant each one broke.
final class FuzzRegressionTests: XCTestCase {
  /// The bytes the fuzz target passes on: the regression input without its first (mode) byte.
  private func regressionInput(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> [UInt8] {
    let bytes = try FileBytes.read(directory() + "/../../Fuzz/Regressions/" + name)
    return Array(try XCTUnwrap(bytes.isEmpty ? nil : bytes.dropFirst(), "\(name) is empty", file: file, line: line))
  }

  /// A repeated key: the last value wins, and the earlier one must leave no trace, or the
  /// snapshot read back from its own output is not `==` to it although every record is the same.
  func testSnapshot_repeatedLabelKey_readsBackEqual() throws {
    let snapshot = try HeapSnapshot(jsonBytes: regressionInput("snapshot-repeated-label-key.fuzz"))
    XCTAssertEqual(snapshot.references.map(\.label), [""])
    let reread = try HeapSnapshot(jsonBytes: snapshot.jsonBytes())
    XCTAssertEqual(reread.references, snapshot.references)
    XCTAssertEqual(reread, snapshot)
  }

  func testSnapshot_repeatedTypeKey_readsBackEqual() throws {
    let text = #"""
      {"format": "swift-heap-snapshot", "version": 1,
       "objects": [{"id": 1, "type": "Old", "type": "New"}, {"id": 2, "type": "Other"}], "references": []}
      """#
    let snapshot = try HeapSnapshot(jsonBytes: Array(text.utf8))
    XCTAssertEqual(snapshot.objects.map(\.type), ["New", "Other"])
    XCTAssertEqual(try HeapSnapshot(jsonBytes: snapshot.jsonBytes()), snapshot)
    var builder = HeapSnapshot.Builder()
    builder.addObject(id: 1, type: "New")
    builder.addObject(id: 2, type: "Other")
    XCTAssertEqual(snapshot, builder.snapshot, "the same contents as a builder's snapshot")
  }

  /// A baseline key that is not spelled as fingerprints are (uppercase digits, a sign) could
  /// never match a finding: the gate would report it as fixed on every run. It is refused.
  func testBaseline_keyWithUppercaseDigits_isRefused() throws {
    XCTAssertThrowsError(try Baseline(jsonBytes: regressionInput("baseline-uppercase-key.fuzz")))
  }

  func testBaseline_keyWithSign_isRefused() throws {
    XCTAssertThrowsError(try Baseline(jsonBytes: regressionInput("baseline-signed-key.fuzz")))
  }

  func testFingerprint_parsesOnlyItsOwnDescription() {
    XCTAssertEqual(Fingerprint("00000000000000ff"), Fingerprint(rawValue: 0xff))
    XCTAssertEqual(Fingerprint("ffffffffffffffff"), Fingerprint(rawValue: .max))
    for text in ["00000000000000FF", "+00000000000000f", "-000000000000000", "0x000000000000ff", " 00000000000000f", "00000000000000f"] {
      XCTAssertNil(Fingerprint(text), text)
    }
  }
}
