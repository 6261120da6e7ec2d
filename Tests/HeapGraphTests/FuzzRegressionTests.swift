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

  // MARK: - Renderers

  /// The gate outcome (every finding new) and the analysis of a regression input.
  private func rendered(_ name: String) throws -> (outcome: GateOutcome, analysis: HeapAnalysis) {
    let analysis = HeapAnalysis(graph: ObjectGraph(try HeapSnapshot(jsonBytes: regressionInput(name))))
    XCTAssertFalse(analysis.findings.isEmpty, name)
    return (GateOutcome(findings: analysis.findings, baseline: Baseline()), analysis)
  }

  /// XML 1.0 cannot hold most control characters, even as references: they become U+FFFD.
  func testJUnit_controlCharacterInType_isReplaced() throws {
    let junit = try rendered("snapshot-control-character-in-type.fuzz").outcome.renderJUnit()
    XCTAssertFalse(junit.unicodeScalars.contains("\u{1}"))
    XCTAssertTrue(junit.contains("A\u{FFFD}"), junit)
  }

  func testJUnit_noncharacterAndCarriageReturn_areReplacedAndEscaped() throws {
    let junit = try rendered("snapshot-noncharacter-and-carriage-return.fuzz").outcome.renderJUnit()
    XCTAssertFalse(junit.unicodeScalars.contains("\u{FFFF}"))
    XCTAssertFalse(junit.unicodeScalars.contains("\r"))
    XCTAssertTrue(junit.contains("a&#13;b"), junit)
  }

  /// `&` followed by a combining mark is one character, but XML still reads the `&`.
  func testJUnit_ampersandWithCombiningMark_isEscaped() throws {
    let junit = try rendered("snapshot-ampersand-with-combining-mark.fuzz").outcome.renderJUnit()
    XCTAssertTrue(junit.contains("A&amp;\u{301}"), junit)
    XCTAssertFalse(junit.replacingOccurrences(of: "&amp;", with: "").contains("&\u{301}"), junit)
  }

  func testMarkdown_lineBreakInLabel_staysInItsRow() throws {
    let markdown = try rendered("snapshot-line-break-in-label.fuzz").outcome.renderMarkdown()
    XCTAssertTrue(markdown.contains("A.a<br>b → A |"), markdown)
  }

  func testMarkdown_pipeWithCombiningMark_isEscaped() throws {
    let markdown = try rendered("snapshot-pipe-with-combining-mark.fuzz").outcome.renderMarkdown()
    XCTAssertTrue(markdown.contains("A\\|\u{301}"), markdown)
  }

  /// `box<Int>` in a table cell would be an HTML tag, which GitHub hides.
  func testMarkdown_genericTypeName_isNotAnHTMLTag() {
    var builder = HeapSnapshot.Builder()
    builder.addObject(id: 1, type: "box<Int>")
    builder.addReference(from: 1, to: 1, label: "value", ownership: .strong)
    let findings = HeapAnalysis(graph: ObjectGraph(builder.snapshot)).findings
    let markdown = GateOutcome(findings: findings, baseline: Baseline()).renderMarkdown()
    XCTAssertTrue(markdown.contains("box\\<Int>"), markdown)
    XCTAssertFalse(markdown.contains(" box<Int>"), markdown)
  }

  /// A quote followed by a combining mark is one character, but Graphviz still reads the quote.
  func testDOT_quoteWithCombiningMark_isEscaped() throws {
    let dot = try rendered("snapshot-quote-with-combining-mark.fuzz").analysis.cycles.renderDOT()
    XCTAssertTrue(dot.contains(#"[label="A\"\#u{301}\nobject 1"]"#), dot)
  }

  func testFingerprint_parsesOnlyItsOwnDescription() {
    XCTAssertEqual(Fingerprint("00000000000000ff"), Fingerprint(rawValue: 0xff))
    XCTAssertEqual(Fingerprint("ffffffffffffffff"), Fingerprint(rawValue: .max))
    for text in ["00000000000000FF", "+00000000000000f", "-000000000000000", "0x000000000000ff", " 00000000000000f", "00000000000000f"] {
      XCTAssertNil(Fingerprint(text), text)
    }
  }
}
