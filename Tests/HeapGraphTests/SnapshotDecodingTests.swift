import HeapGraph
import LeakTestSupport
import XCTest

/// Every malformed input gives an error that names the problem and where it is.
final class SnapshotDecodingTests: XCTestCase {
  private let header = #"{"format": "swift-heap-snapshot", "version": 1, "#

  private func decodingError(
    _ text: String, file: StaticString = #filePath, line: UInt = #line
  ) -> SnapshotDecodingError? {
    decodingError(bytes: Array(text.utf8), file: file, line: line)
  }

  private func decodingError(
    bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line
  ) -> SnapshotDecodingError? {
    do {
      _ = try HeapSnapshot(jsonBytes: bytes)
      XCTFail("the input was accepted", file: file, line: line)
      return nil
    } catch {
      return error
    }
  }

  private func assertError(
    _ text: String, code: String, path: String?, offset: Int? = nil, message: String,
    file: StaticString = #filePath, line: UInt = #line
  ) {
    guard let error = decodingError(text, file: file, line: line) else { return }
    XCTAssertEqual(error.code, code, "\(error)", file: file, line: line)
    if let path { XCTAssertEqual(error.location?.path, path, "\(error)", file: file, line: line) }
    if let offset { XCTAssertEqual(error.location?.byteOffset, offset, "\(error)", file: file, line: line) }
    XCTAssertTrue(error.description.contains(message), "'\(error)' should contain '\(message)'", file: file, line: line)
  }

  // MARK: - Not JSON

  func testDecoding_emptyFile_saysItIsEmpty() {
    let error = decodingError("")
    XCTAssertEqual(error?.code, "empty-file")
    XCTAssertNil(error?.location)
    XCTAssertTrue(error?.description.contains("the file is empty (0 bytes)") ?? false)
  }

  func testDecoding_whitespaceOnly_saysTheFileEndsEarly() {
    assertError("  \n ", code: "truncated", path: "", offset: 4, message: "the file ends early")
  }

  func testDecoding_binaryFile_namesTheByte() {
    let error = decodingError(bytes: [0x7F, 0x45, 0x4C, 0x46, 0x02, 0x00])
    XCTAssertEqual(error?.code, "wrong-type")
    XCTAssertEqual(error?.location?.byteOffset, 0)
    XCTAssertTrue(error?.description.contains("byte 0x7F (binary data, not JSON text)") ?? false, "\(String(describing: error))")
  }

  func testDecoding_invalidJSON_givesLineAndColumn() {
    let text = "{\n  \"format\": \"swift-heap-snapshot\",\n  \"version\" 1\n}"
    guard let error = decodingError(text) else { return }
    XCTAssertEqual(error.code, "wrong-type")
    XCTAssertEqual(error.location?.line, 3)
    XCTAssertEqual(error.location?.column, 13)
    XCTAssertTrue(error.description.contains("expected ':' after a key"), "\(error)")
  }

  func testDecoding_missingComma_isASyntaxError() {
    assertError(
      header + #""objects": [{"id": 1, "type": "A"} {"id": 2, "type": "B"}], "references": []}"#,
      code: "invalid-json", path: "objects[0]", message: "expected ',' or ']' after an element, found an object")
  }

  func testDecoding_truncatedFile_saysItEndsEarly() {
    let full = header + #""objects": [{"id": 1, "type": "MyApp.Feed"}], "references": []}"#
    for cut in [10, 40, full.utf8.count - 30, full.utf8.count - 1] {
      let text = String(decoding: Array(full.utf8)[..<cut], as: UTF8.self)
      guard let error = decodingError(text) else { continue }
      XCTAssertEqual(error.code, "truncated", "cut at \(cut): \(error)")
      XCTAssertTrue(error.description.contains("the file ends early"), "\(error)")
    }
  }

  func testDecoding_trailingGarbage_isRejected() {
    assertError(
      header + #""objects": [], "references": []} x"#, code: "invalid-json", path: "",
      message: "unexpected 'x' after the end of the snapshot object")
  }

  func testDecoding_deepNestingInAnUnknownField_isRejectedWithoutCrashing() {
    let deep = String(repeating: "[", count: 100_000)
    assertError(header + #""extra": "# + deep, code: "invalid-json", path: nil, message: "nested more than 512 levels")
  }

  func testDecoding_controlCharacterInString_isRejected() {
    assertError(
      header + "\"objects\": [{\"id\": 1, \"type\": \"A\u{01}\"}], \"references\": []}",
      code: "invalid-json", path: "objects[0].type", message: "control character 0x1")
  }

  func testDecoding_invalidUTF8_isRejected() {
    var bytes = Array((header + #""objects": [{"id": 1, "type": "A"#).utf8)
    bytes += [0xFF, 0xFE]
    bytes += Array(#""}], "references": []}"#.utf8)
    let error = decodingError(bytes: bytes)
    XCTAssertEqual(error?.code, "invalid-json")
    XCTAssertEqual(error?.location?.path, "objects[0].type")
    XCTAssertTrue(error?.description.contains("not valid UTF-8") ?? false)
  }

  // MARK: - Not a snapshot

  func testDecoding_topLevelArray_isNotASnapshot() {
    assertError("[1, 2]", code: "wrong-type", path: "", offset: 0, message: "expected a JSON object with \"format\"")
  }

  func testDecoding_otherFormat_isNamed() {
    assertError(#"{"format": "hprof"}"#, code: "not-a-snapshot", path: "format", offset: 11, message: "\"format\" is \"hprof\"")
  }

  func testDecoding_newerVersion_isUnsupported() {
    assertError(
      #"{"format": "swift-heap-snapshot", "version": 2, "objects": [], "references": []}"#,
      code: "unsupported-version", path: "version", message: "snapshot version 2 is not supported (this tool reads versions 1...1)")
  }

  func testDecoding_missingRequiredTopLevelFields_areNamed() {
    assertError(#"{"version": 1, "objects": [], "references": []}"#, code: "missing-field", path: "", offset: 0, message: "\"format\"")
    assertError(
      #"{"format": "swift-heap-snapshot", "objects": [], "references": []}"#, code: "missing-field", path: "", message: "\"version\"")
    assertError(header + #""references": []}"#, code: "missing-field", path: "", message: "\"objects\"")
    assertError(header + #""objects": []}"#, code: "missing-field", path: "", message: "\"references\"")
  }

  // MARK: - Bad records

  func testDecoding_objectWithoutType_namesTheObject() {
    let text = header + #""objects": [{"id": 1, "type": "A"}, {"id": 2}], "references": []}"#
    let offset = Array(text.utf8).firstIndex(of: UInt8(ascii: "{"), after: 2)
    assertError(text, code: "missing-field", path: "objects[1]", offset: offset, message: "missing required field \"type\"")
  }

  func testDecoding_wrongTypes_areNamed() {
    assertError(
      header + #""objects": [{"id": "1", "type": "A"}], "references": []}"#,
      code: "wrong-type", path: "objects[0].id", message: "expected an integer, found a string")
    assertError(
      header + #""objects": [{"id": 1.5, "type": "A"}], "references": []}"#,
      code: "wrong-type", path: "objects[0].id", message: "found a fractional number")
    assertError(
      header + #""objects": [{"id": 1, "type": 7}], "references": []}"#,
      code: "wrong-type", path: "objects[0].type", message: "expected a string, found a number")
    assertError(
      header + #""objects": {}, "references": []}"#, code: "wrong-type", path: "objects",
      message: "expected an array of records, found an object")
    assertError(
      header + #""objects": [[]], "references": []}"#, code: "wrong-type", path: "objects[0]",
      message: "expected an object record, found an array")
    assertError(
      header + #""objects": [{"id": 1, "type": "A"}], "references": [{"from": 1, "to": 1, "ownership": true}]}"#,
      code: "wrong-type", path: "references[0].ownership", message: "found a boolean")
  }

  func testDecoding_absurdValues_areRejected() {
    assertError(
      header + #""objects": [{"id": 99999999999999999999, "type": "A"}], "references": []}"#,
      code: "invalid-value", path: "objects[0].id", message: "too large")
    assertError(
      header + #""objects": [{"id": 1, "type": "A", "size": -5}], "references": []}"#,
      code: "invalid-value", path: "objects[0].size", message: "-5 is negative")
    assertError(
      header + #""objects": [{"id": 1, "type": "A", "address": "0xZZ"}], "references": []}"#,
      code: "invalid-value", path: "objects[0].address", message: "not a hexadecimal address")
    assertError(
      header + #""objects": [{"id": 1, "type": ""}], "references": []}"#,
      code: "invalid-value", path: "objects[0].type", message: "the type name is empty")
    assertError(
      header + #""objects": [{"id": 01, "type": "A"}], "references": []}"#,
      code: "invalid-json", path: "objects[0].id", message: "leading zeros")
  }

  func testDecoding_duplicateObjectID_namesBothObjects() {
    let text = header + #""objects": [{"id": 1, "type": "A"}, {"id": 2, "type": "B"}, {"id": 1, "type": "C"}], "references": []}"#
    assertError(text, code: "duplicate-object-id", path: "objects[2].id", message: "object id 1 is used twice (first by objects[0])")
  }

  func testDecoding_duplicateObjectIDWithSparseIDs_isFoundToo() {
    let text =
      header + #""objects": [{"id": 5000000000, "type": "A"}, {"id": -7, "type": "B"}, {"id": 5000000000, "type": "C"}], "references": []}"#
    assertError(text, code: "duplicate-object-id", path: "objects[2].id", message: "object id 5000000000 is used twice")
  }

  func testDecoding_referenceToMissingObject_namesTheReferenceAndTheID() {
    let text =
      header
      + #""objects": [{"id": 1, "type": "A"}], "references": [{"from": 1, "to": 1, "ownership": "strong"}, {"from": 1, "to": 99, "ownership": "strong"}]}"#
    let offset = text.utf8.count - 46
    assertError(text, code: "unknown-object", path: "references[1].to", offset: offset, message: "no object has id 99")
  }

  func testDecoding_referencesBeforeObjects_stillResolve() throws {
    let text =
      #"{"references": [{"from": 2, "to": 1, "ownership": "weak"}], "objects": [{"id": 1, "type": "A"}, {"id": 2, "type": "B"}], "version": 1, "format": "swift-heap-snapshot"}"#
    let snapshot = try HeapSnapshot(jsonBytes: Array(text.utf8))
    XCTAssertEqual(snapshot.references, [HeapSnapshot.Reference(from: 2, to: 1, label: nil, ownership: .weak)])
  }

  func testDecoding_unknownOwnership_listsTheValidOnes() {
    assertError(
      header + #""objects": [{"id": 1, "type": "A"}], "references": [{"from": 1, "to": 1, "ownership": "sturdy"}]}"#,
      code: "unknown-ownership", path: "references[0].ownership",
      message: "unknown ownership \"sturdy\"; expected one of strong, weak, unowned, unmanaged")
  }

  func testDecoding_missingReferenceFields_areNamed() {
    for (field, record) in [
      ("from", #"{"to": 1, "ownership": "strong"}"#), ("to", #"{"from": 1, "ownership": "strong"}"#),
      ("ownership", #"{"from": 1, "to": 1}"#),
    ] {
      assertError(
        header + #""objects": [{"id": 1, "type": "A"}], "references": ["# + record + "]}",
        code: "missing-field", path: "references[0]", message: "missing required field \"\(field)\"")
    }
  }

  func testDecoding_rootOrStackProblems_areNamed() {
    assertError(
      header + #""objects": [{"id": 1, "type": "A"}], "references": [], "roots": [{"object": 4, "kind": "global"}]}"#,
      code: "unknown-object", path: "roots[0].object", message: "no object has id 4")
    assertError(
      header + #""objects": [{"id": 1, "type": "A", "stack": 3}], "references": [], "stacks": [{"id": 0, "frames": []}]}"#,
      code: "unknown-stack", path: "objects[0].stack", message: "no stack has id 3")
    assertError(
      header + #""objects": [], "references": [], "stacks": [{"id": 0, "frames": []}, {"id": 0, "frames": []}]}"#,
      code: "duplicate-stack-id", path: "stacks[1].id", message: "stack id 0 is used twice")
    assertError(
      header + #""objects": [], "references": [], "stacks": [{"id": 0, "frames": [{"line": -1}]}]}"#,
      code: "invalid-value", path: "stacks[0].frames[0].line", message: "negative")
  }

  // MARK: - Record paths after other records

  func testDecoding_errorInAReference_isNamedAfterStacksWithFramesAndObjects() {
    let before = #""stacks": [{"id": 0, "frames": [{"pc": "0x1", "line": 3}]}], "objects": [{"id": 1, "type": "A", "stack": 0}], "#
    assertError(
      header + before + #""references": [{"from": 1, "to": 1, "ownership": "strong"}, {"from": 1, "to": "1", "ownership": "strong"}]}"#,
      code: "wrong-type", path: "references[1].to", message: "expected an object id (integer), found a string")
    assertError(
      header + before + #""references": [{"from": 1, "to": 1, "ownership": "strong"}, {"from": 1, "ownership": "strong"}]}"#,
      code: "missing-field", path: "references[1]", message: "missing required field \"to\"")
  }

  func testDecoding_frameErrors_nameTheFrame() {
    assertError(
      header
        + #""objects": [], "references": [], "stacks": [{"id": 0, "frames": []}, {"id": 1, "frames": [{"pc": "0x1"}, {"symbol": "f", "pc": "zz"}]}]}"#,
      code: "invalid-value", path: "stacks[1].frames[1].pc", message: "not a hexadecimal address")
    assertError(
      header + #""objects": [], "references": [], "stacks": [{"id": 0, "frames": [{"pc": "0x1"} {"pc": "0x2"}]}]}"#,
      code: "invalid-json", path: "stacks[0].frames[0]", message: "expected ',' or ']' after an element")
    assertError(
      header + #""objects": [], "references": [], "stacks": [{"id": 0, "frames": [{"pc": "0x1"}]}, {"frames": [], "id": "2"}]}"#,
      code: "wrong-type", path: "stacks[1].id", message: "expected an integer, found a string")
  }

  /// The path stops at the unknown member: what is inside it is skipped, not read.
  func testDecoding_badValueInsideAnUnknownField_namesThatField() {
    assertError(
      header + #""objects": [{"id": 1, "type": "A", "color": [1, 2,]}], "references": []}"#,
      code: "invalid-json", path: "objects[0].color", message: "expected a value, found ']'")
    assertError(
      header + #""objects": [], "references": [], "stacks": [{"id": 0, "frames": [{"pc": "0x1", "note": {"a" 1}}]}]}"#,
      code: "wrong-type", path: "stacks[0].frames[0].note", message: "expected ':' after a key")
    assertError(
      header + #""objects": [], "references": [], "stacks": [{"id": 0, "frames": [{"line": 2, "note": -}]}]}"#,
      code: "invalid-json", path: "stacks[0].frames[0].note", message: "malformed number")
    assertError(
      header + #""metadata": {"tool": "t", "extra": tru}, "objects": [], "references": []}"#,
      code: "invalid-json", path: "metadata.extra", message: "unexpected 't'")
    assertError(
      header + #""objects": [{"id": 1, "type": "A"}], "future": {"x": -}, "references": []}"#,
      code: "invalid-json", path: "future", message: "malformed number")
  }

  func testDecoding_metadataErrors_nameTheMetadata() {
    assertError(
      #"{"metadata": {"createdAt": "today", "tool": 5}}"#,
      code: "wrong-type", path: "metadata.tool", message: "expected a string or null, found a number")
    assertError(#"{"metadata": {"tool": "t", "#, code: "truncated", path: "metadata", message: "expected a key")
    assertError(#"{"metadata": 7}"#, code: "wrong-type", path: "metadata", message: "expected an object, found a number")
  }

  func testDecoding_topLevelSyntaxErrorAfterRecords_namesNoRecord() {
    assertError(
      header + #""objects": [{"id": 1, "type": "A"}] "references": []}"#,
      code: "invalid-json", path: "", message: "expected ',' or '}' after a member, found a string")
    assertError(
      header + #""stacks": [{"id": 0, "frames": [{"pc": "0x1"}]}], "objects": [], "references": []"#,
      code: "truncated", path: "", message: "expected a key or '}'")
  }

  func testDecoding_versionAndFormatErrors_areNamedAfterRecords() {
    assertError(
      #"{"objects": [{"id": 1, "type": "A"}], "references": [], "format": "swift-heap-snapshot", "version": "1"}"#,
      code: "wrong-type", path: "version", message: "expected an integer, found a string")
    assertError(
      #"{"stacks": [{"id": 0, "frames": [{"pc": "0x1"}]}], "format": "other"}"#,
      code: "not-a-snapshot", path: "format", message: "\"format\" is \"other\"")
  }

  // MARK: - What is accepted

  func testDecoding_unknownFieldsAndEscapes_areHandled() throws {
    let text =
      "\u{FEFF}" + header + #""future": {"nested": [1, 2.5e3, true, null, "x"]}, "metadata": {"tool": "t", "extra": 1},"#
      + #""objects": [{"id": 1, "type": "Caf\u00e9.\"Q\"\n\ud83d\ude00", "size": 48, "generation": 2, "color": "red"}],"#
      + #""references": [{"from": 1, "to": 1, "label": "self", "ownership": "unowned", "note": null}]}"#
    let snapshot = try HeapSnapshot(jsonBytes: Array(text.utf8))
    XCTAssertEqual(snapshot.metadata.tool, "t")
    XCTAssertEqual(snapshot.object(at: 0).type, "Café.\"Q\"\n😀")
    XCTAssertEqual(snapshot.object(at: 0).size, 48)
    XCTAssertEqual(snapshot.object(at: 0).generation, 2)
    XCTAssertEqual(snapshot.reference(at: 0).ownership, .unowned)
  }

  func testWriting_roundTrip_givesAnEqualSnapshotAndIdenticalBytes() throws {
    var builder = HeapSnapshot.Builder(metadata: .init(tool: "tests", createdAt: "2026-11-22T10:00:00Z", process: "Round\"trip"))
    builder.addStack(
      id: 10, frames: [StackFrame(pc: 0x55d0c1, symbol: "MyApp.Feed.init()", file: "Feed.swift", line: 12, column: 5), StackFrame(pc: 0x1)])
    builder.addObject(id: 1, type: "MyApp.Feed", address: 0x7f3a10, size: 48, generation: 2, stack: 10)
    builder.addObject(id: -4, type: "closure #1 in MyApp.Feed.load()")
    builder.addReference(from: 1, to: -4, label: "onUpdate", ownership: .strong)
    builder.addReference(from: -4, to: 1, label: nil, ownership: .weak)
    builder.addRoot(object: 1, kind: "global", label: "Feed.shared")
    let snapshot = builder.snapshot
    let bytes = snapshot.jsonBytes()
    let decoded = try HeapSnapshot(jsonBytes: bytes)
    XCTAssertEqual(decoded, snapshot)
    XCTAssertEqual(decoded.jsonBytes(), bytes)
    XCTAssertEqual(decoded.object(at: 0).stack, 10)
    XCTAssertEqual(decoded.stacks.first?.frames.first?.description, "MyApp.Feed.init() (Feed.swift:12)")
    XCTAssertEqual(decoded.roots, [HeapSnapshot.Root(object: 1, kind: "global", label: "Feed.shared")])
  }

  func testFileBytes_writeAtomically_replacesTheFileAndLeavesNoTemporary() throws {
    let directory = NSTemporaryDirectory() + "leak-detector-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/snapshot.json"
    try FileBytes.writeAtomically(Array("old".utf8), to: path)
    try FileBytes.writeAtomically(Array("new".utf8), to: path)
    XCTAssertEqual(try FileBytes.read(path), Array("new".utf8))
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory), ["snapshot.json"])
    XCTAssertThrowsError(try FileBytes.read(directory + "/missing.json")) { error in
      XCTAssertTrue("\(error)".contains("missing.json: cannot open: No such file or directory"), "\(error)")
    }
    XCTAssertThrowsError(try FileBytes.writeAtomically([], to: directory + "/no/such/dir/x.json"))
  }
}

extension Array where Element == UInt8 {
  fileprivate func firstIndex(of byte: UInt8, after count: Int) -> Int? {
    var seen = 0
    for (index, element) in enumerated() where element == byte {
      seen += 1
      if seen > count { return index }
    }
    return nil
  }
}
