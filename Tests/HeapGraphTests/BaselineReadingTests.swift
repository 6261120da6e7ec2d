import HeapGraph
import XCTest

/// Every malformed baseline gives an error that names the member (by key path), the line and
/// the column, and says what is wrong in plain words.
final class BaselineReadingTests: XCTestCase {
  private let fingerprint = "c69426e4d2ea887e"

  private func baselineError(
    _ text: String, file: StaticString = #filePath, line: UInt = #line
  ) -> BaselineError? {
    baselineError(bytes: Array(text.utf8), file: file, line: line)
  }

  private func baselineError(
    bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line
  ) -> BaselineError? {
    do {
      _ = try Baseline(jsonBytes: bytes)
      XCTFail("the baseline was accepted", file: file, line: line)
      return nil
    } catch {
      return error
    }
  }

  /// Checks the error's key path, line and column, and that its text names the problem.
  private func assertError(
    _ text: String, path: String, line errorLine: Int, column: Int, problem: String,
    file: StaticString = #filePath, line: UInt = #line
  ) {
    guard let error = baselineError(text, file: file, line: line) else { return }
    XCTAssertEqual(error.location?.path, path, "\(error)", file: file, line: line)
    XCTAssertEqual(error.location?.line, errorLine, "\(error)", file: file, line: line)
    XCTAssertEqual(error.location?.column, column, "\(error)", file: file, line: line)
    XCTAssertTrue(error.problem.contains(problem), "'\(error.problem)' should contain '\(problem)'", file: file, line: line)
    let prefix = path.isEmpty ? "" : "\(path): "
    XCTAssertTrue(error.description.hasPrefix(prefix + error.problem), "\(error)", file: file, line: line)
    XCTAssertTrue(error.description.hasSuffix(", line \(errorLine), column \(column))"), "\(error)", file: file, line: line)
    XCTAssertFalse(error.description.contains("\n"), "one line: \(error)", file: file, line: line)
  }

  /// A baseline as `--update-baseline` writes it, with `entry` as the body of its one finding.
  private func baseline(entry: String, key: String? = nil) -> String {
    """
    {
      "accepted" : {
        "\(key ?? fingerprint)" : {
    \(entry)
        }
      },
      "formatVersion" : 1
    }
    """
  }

  private let completeEntry = """
          "kind" : "cycle",
          "reason" : "known, issue #12",
          "summary" : "App.Cache.entries -> App.Cache"
    """

  // MARK: - Reading

  func testReading_whatTheWriterWrites_roundTrips() throws {
    let written = Baseline(accepted: [fingerprint: .init(kind: "cycle", summary: "A -> A", reason: "known \"x\" \\ y")])
    XCTAssertEqual(try Baseline(jsonBytes: written.jsonBytes()), written)
  }

  func testReading_unknownMembers_areIgnored() throws {
    let text = """
      {"formatVersion": 1, "generatedBy": {"tool": "later"}, "accepted": {
        "\(fingerprint)": {"kind": "cycle", "summary": "s", "reason": "r", "issue": 12, "tags": ["a"]}}}
      """
    let baseline = try Baseline(jsonBytes: Array(text.utf8))
    XCTAssertEqual(baseline.accepted, [fingerprint: .init(kind: "cycle", summary: "s", reason: "r")])
  }

  func testReading_byteOrderMarkAndAnUnknownKind_areAccepted() throws {
    let text = #"{"formatVersion": 1, "accepted": {"00000000000000ff": {"kind": "later-kind", "summary": "", "reason": ""}}}"#
    let baseline = try Baseline(jsonBytes: [0xEF, 0xBB, 0xBF] + Array(text.utf8))
    XCTAssertEqual(baseline.accepted["00000000000000ff"]?.kind, "later-kind")
  }

  // MARK: - Not JSON

  func testReading_emptyFile_saysItIsEmpty() {
    let error = baselineError("")
    XCTAssertNil(error?.location)
    XCTAssertTrue(
      error?.description.hasPrefix("the file is empty (0 bytes): a baseline is a JSON object") ?? false, "\(String(describing: error))")
  }

  func testReading_invalidJSON_namesTheMemberLineAndColumn() {
    let text = baseline(entry: completeEntry.replacingOccurrences(of: "\"kind\" :", with: "\"kind\""))
    assertError(text, path: "accepted.\(fingerprint)", line: 4, column: 14, problem: "expected ':' after a key, found a string")
  }

  func testReading_missingComma_isInvalidJSON() {
    let text = baseline(entry: completeEntry.replacingOccurrences(of: "\"cycle\",", with: "\"cycle\""))
    assertError(text, path: "accepted.\(fingerprint)", line: 5, column: 7, problem: "invalid JSON: expected ',' or '}' after a member")
  }

  func testReading_truncatedFile_saysItEndsEarly() {
    let full = baseline(entry: completeEntry)
    for cut in [1, 20, full.utf8.count / 2, full.utf8.count - 1] {
      let text = String(decoding: Array(full.utf8)[..<cut], as: UTF8.self)
      guard let error = baselineError(text) else { continue }
      XCTAssertTrue(error.problem.hasPrefix("the file ends early"), "cut at \(cut): \(error)")
      XCTAssertEqual(error.location?.byteOffset, cut, "cut at \(cut): \(error)")
    }
  }

  func testReading_binaryData_namesTheByte() {
    let error = baselineError(bytes: [0x7F, 0x45, 0x4C, 0x46, 0x02, 0x00])
    XCTAssertEqual(error?.location?.byteOffset, 0)
    XCTAssertTrue(error?.problem.contains("found byte 0x7F (binary data, not JSON text)") ?? false, "\(String(describing: error))")
  }

  func testReading_wordThatIsNotJSON_isNamedByItsFirstCharacter() {
    assertError("{ not json", path: "", line: 1, column: 3, problem: "invalid JSON: expected a quoted key, found 'n'")
    assertError(#"{"formatVersion": nope}"#, path: "formatVersion", line: 1, column: 19, problem: "expected an integer, found 'n'")
  }

  func testReading_trailingText_isRejected() {
    assertError(
      #"{"formatVersion": 1, "accepted": {}} {}"#, path: "", line: 1, column: 38,
      problem: "unexpected an object after the end of the baseline object")
  }

  // MARK: - Not a baseline

  func testReading_topLevelArray_isNotABaseline() {
    assertError(
      "[]", path: "", line: 1, column: 1, problem: "expected a JSON object with \"formatVersion\" and \"accepted\", found an array")
  }

  func testReading_missingTopLevelMembers_areNamed() {
    assertError(#"{"accepted": {}}"#, path: "", line: 1, column: 1, problem: "missing required field \"formatVersion\"")
    assertError("\n  {\"formatVersion\": 1}", path: "", line: 2, column: 3, problem: "missing required field \"accepted\"")
  }

  func testReading_snapshotInsteadOfBaseline_saysWhatIsMissing() {
    assertError(
      #"{"format": "swift-heap-snapshot", "version": 1, "objects": [], "references": []}"#, path: "", line: 1,
      column: 1, problem: "missing required field \"formatVersion\"")
  }

  func testReading_unsupportedFormatVersion_isNamedEvenAfterAcceptedItCannotRead() {
    // `accepted` sorts first; a later version may shape it differently, so the version decides.
    let text = """
      {
        "accepted" : {"\(fingerprint)" : {"kind" : "cycle", "summary" : "s", "reasons" : ["r"]}},
        "formatVersion" : 2
      }
      """
    assertError(text, path: "formatVersion", line: 3, column: 21, problem: "baseline format version 2 is not supported (this tool reads 1)")
  }

  // MARK: - Wrong types

  func testReading_wrongTypes_nameTheMember() {
    assertError(
      #"{"formatVersion": "1", "accepted": {}}"#, path: "formatVersion", line: 1, column: 19,
      problem: "expected an integer, found a string")
    assertError(
      #"{"formatVersion": 1.5, "accepted": {}}"#, path: "formatVersion", line: 1, column: 19,
      problem: "expected an integer, found a fractional number")
    assertError(
      #"{"formatVersion": 1, "accepted": []}"#, path: "accepted", line: 1, column: 34,
      problem: "expected an object of accepted findings keyed by fingerprint, found an array")
    assertError(
      baseline(entry: completeEntry).replacingOccurrences(of: "\"known, issue #12\"", with: "12"),
      path: "accepted.\(fingerprint).reason", line: 5, column: 18, problem: "expected a string, found a number")
    assertError(
      baseline(entry: completeEntry).replacingOccurrences(of: "\"cycle\"", with: "null"),
      path: "accepted.\(fingerprint).kind", line: 4, column: 16, problem: "expected a string, found null")
    assertError(
      #"{"formatVersion": 1, "accepted": {"\#(fingerprint)": "cycle"}}"#, path: "accepted.\(fingerprint)", line: 1,
      column: 55, problem: "expected an accepted finding (an object with \"kind\", \"summary\" and \"reason\"), found a string")
  }

  // MARK: - Keys and entries

  func testReading_keyThatIsNotAFingerprint_isNamed() {
    for key in ["xyz", "C69426E4D2EA887E", "c69426e4d2ea887", "+69426e4d2ea887e", "c69426e4d2ea887e0", ""] {
      assertError(
        baseline(entry: completeEntry, key: key), path: key.isEmpty ? "accepted" : "accepted.\(key)", line: 3, column: 5,
        problem: "\"\(key)\" is not a fingerprint (16 lowercase hexadecimal digits)")
    }
  }

  func testReading_fingerprintListedTwice_isNamed() {
    let entry = #"{"kind": "cycle", "summary": "s", "reason": "r"}"#
    let text = "{\"formatVersion\": 1, \"accepted\": {\n  \"\(fingerprint)\": \(entry),\n  \"\(fingerprint)\": \(entry)}}"
    assertError(text, path: "accepted.\(fingerprint)", line: 3, column: 3, problem: "the fingerprint \(fingerprint) is listed twice")
  }

  func testReading_missingEntryFields_areNamed() {
    for field in ["kind", "summary", "reason"] {
      let entry = completeEntry.split(separator: "\n").filter { !$0.contains("\"\(field)\"") }.joined(separator: "\n")
      let text = baseline(entry: entry.hasSuffix(",") ? String(entry.dropLast()) : entry)
      assertError(text, path: "accepted.\(fingerprint)", line: 3, column: 26, problem: "missing required field \"\(field)\"")
    }
  }
}
