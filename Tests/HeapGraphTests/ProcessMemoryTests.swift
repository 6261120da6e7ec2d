import HeapGraph
import XCTest

/// The process's memory in a snapshot: it survives both encodings, a snapshot without it is
/// written as before, a malformed record is an error that names its field, and the analysis
/// report shows it.
final class ProcessMemoryTests: XCTestCase {
  private let memory = ProcessMemory(
    swiftObjectCount: 51_234, swiftObjectBytes: 12 << 20, mallocInUse: 300 << 20, mallocFreeInArenas: 80 << 20,
    mallocArenaBytes: 360 << 20, mallocArenas: 8, mallocMmapped: 20 << 20, residentBytes: 412 << 20,
    anonymousBytes: 380 << 20, fileBackedBytes: 32 << 20, virtualBytes: 2 << 30)

  private func snapshot(memory: ProcessMemory?) -> HeapSnapshot {
    var builder = HeapSnapshot.Builder(metadata: .init(tool: "test", memory: memory))
    builder.addObject(id: 1, type: "App.Feed", address: 0x1000, size: 48)
    builder.addObject(id: 2, type: "App.Item", size: 32)
    builder.addReference(from: 1, to: 2, label: "items[0]", ownership: .strong)
    return builder.snapshot
  }

  // MARK: - Round trips

  func testJSON_roundTrip_keepsEveryField() throws {
    let snapshot = snapshot(memory: memory)
    let bytes = snapshot.jsonBytes()
    let read = try HeapSnapshot(jsonBytes: bytes)
    XCTAssertEqual(read.metadata.memory, memory)
    XCTAssertEqual(read, snapshot)
    XCTAssertEqual(read.jsonBytes(), bytes)
  }

  func testJSON_writesTheKnownFieldsInMetadata() {
    var partial = ProcessMemory()
    partial.residentBytes = 4096
    partial.swiftObjectCount = 2
    let text = String(decoding: snapshot(memory: partial).jsonBytes(), as: UTF8.self)
    XCTAssertTrue(
      text.contains(#""metadata": {"tool": "test", "memory": {"swiftObjectCount": 2, "residentBytes": 4096}},"#), text)
  }

  func testJSON_withoutMemory_hasNoMemoryField() {
    let text = String(decoding: snapshot(memory: nil).jsonBytes(), as: UTF8.self)
    XCTAssertTrue(text.contains(#""metadata": {"tool": "test"},"#), text)
  }

  func testBinary_roundTrip_isVersion3AndKeepsEveryField() throws {
    for memory in [memory, ProcessMemory(), ProcessMemory(residentBytes: 0)] {
      let snapshot = snapshot(memory: memory)
      let bytes = snapshot.binaryBytes()
      XCTAssertEqual(Array(bytes[4..<8]), [3, 0, 0, 0], "the memory needs version 3 of the binary encoding")
      XCTAssertEqual(try HeapSnapshot(binaryBytes: bytes), snapshot)
      for length in stride(from: 0, to: bytes.count, by: 7) {
        XCTAssertThrowsError(try HeapSnapshot(binaryBytes: Array(bytes[..<length])), "truncated to \(length) bytes")
      }
    }
  }

  /// Diagnostics' records and the memory together: version 3 carries both.
  func testBinary_withRecordsAndMemory_keepsBoth() throws {
    var snapshot = snapshot(memory: memory)
    snapshot.metadata.diagnosticRecords = [
      CaptureDiagnostic(kind: .objectLimit, message: "stopped", count: 3), CaptureDiagnostic(message: "a sentence"),
    ]
    XCTAssertEqual(try HeapSnapshot(binaryBytes: snapshot.binaryBytes()), snapshot)
    XCTAssertEqual(try HeapSnapshot(jsonBytes: snapshot.jsonBytes()), snapshot)
  }

  /// A snapshot without memory is written as before: version 1, byte for byte.
  func testBinary_withoutMemory_isVersion1() throws {
    let bytes = snapshot(memory: nil).binaryBytes()
    XCTAssertEqual(Array(bytes[4..<8]), [1, 0, 0, 0])
    XCTAssertNil(try HeapSnapshot(binaryBytes: bytes).metadata.memory)
  }

  /// A later version's fields after the known ones are skipped; a negative size is an error
  /// that names the field.
  func testBinary_readsLaterFieldsAndRejectsNegativeOnes() throws {
    let known = snapshot(memory: ProcessMemory(residentBytes: 7)).binaryBytes()
    let countOffset = try offsetOfMemoryFields(in: known)
    var later = Array(known[..<countOffset])
    later += withUnsafeBytes(of: Int64(ProcessMemory.fields.count + 1).littleEndian, Array.init)
    later += known[(countOffset + 8)..<(countOffset + 8 + 8 * ProcessMemory.fields.count)]
    later += withUnsafeBytes(of: Int64(99).littleEndian, Array.init)
    later += known[(countOffset + 8 + 8 * ProcessMemory.fields.count)...]
    XCTAssertEqual(try HeapSnapshot(binaryBytes: later).metadata.memory, ProcessMemory(residentBytes: 7))

    var negative = known
    let resident = countOffset + 8 + 8 * ProcessMemory.fields.firstIndex(where: { "\($0.name)" == "residentBytes" })!
    negative.replaceSubrange(resident..<(resident + 8), with: withUnsafeBytes(of: Int64(-5).littleEndian, Array.init))
    XCTAssertThrowsError(try HeapSnapshot(binaryBytes: negative)) { error in
      XCTAssertTrue("\(error)".contains("metadata.memory.residentBytes: -5 is negative"), "\(error)")
    }
  }

  /// Where the memory's count of fields is in `bytes`: after the magic, the version, three
  /// optional strings (`tool` present, two absent) and an empty list of diagnostics.
  private func offsetOfMemoryFields(in bytes: [UInt8]) throws -> Int {
    let toolLength = Int(bytes[9])
    return 4 + 4 + (1 + 8 + toolLength) + 1 + 1 + 8
  }

  // MARK: - Reading errors

  private func readingError(_ memoryJSON: String) -> SnapshotDecodingError? {
    let json =
      #"{"format": "swift-heap-snapshot", "version": 1, "metadata": {"memory": "# + memoryJSON
      + #"}, "objects": [], "references": []}"#
    do {
      _ = try HeapSnapshot(jsonBytes: Array(json.utf8))
      XCTFail("accepted \(memoryJSON)")
      return nil
    } catch {
      return error
    }
  }

  func testJSON_invalidMemoryField_isAnErrorNamingTheField() {
    let text = readingError(#"{"residentBytes": "412 MB"}"#)
    XCTAssertEqual(text?.code, "wrong-type")
    XCTAssertEqual(text?.location?.path, "metadata.memory.residentBytes")
    let negative = readingError(#"{"mallocInUse": 1, "mallocFreeInArenas": -3}"#)
    XCTAssertEqual(negative?.code, "invalid-value")
    XCTAssertEqual(negative?.location?.path, "metadata.memory.mallocFreeInArenas")
    XCTAssertTrue(negative?.description.contains("-3 is negative") ?? false, "\(String(describing: negative))")
    let fraction = readingError(#"{"swiftObjectCount": 1.5}"#)
    XCTAssertEqual(fraction?.location?.path, "metadata.memory.swiftObjectCount")
    let notAnObject = readingError("[1, 2]")
    XCTAssertEqual(notAnObject?.code, "wrong-type")
    XCTAssertEqual(notAnObject?.location?.path, "metadata.memory")
  }

  /// Fields this version does not know are ignored, as everywhere in the format; `null` is unknown.
  func testJSON_unknownFieldsAndNulls_areRead() throws {
    let json = #"""
      {"format": "swift-heap-snapshot", "version": 1,
       "metadata": {"memory": {"residentBytes": 8192, "jemallocActive": 5, "mallocArenas": null}},
       "objects": [], "references": []}
      """#
    XCTAssertEqual(try HeapSnapshot(jsonBytes: Array(json.utf8)).metadata.memory, ProcessMemory(residentBytes: 8192))
    let none = #"{"format": "swift-heap-snapshot", "version": 1, "metadata": {"memory": null}, "objects": [], "references": []}"#
    XCTAssertNil(try HeapSnapshot(jsonBytes: Array(none.utf8)).metadata.memory)
  }

  // MARK: - Keeping and counting

  func testStripping_keepsTheMemory() {
    XCTAssertEqual(snapshot(memory: memory).stripped().metadata.memory, memory)
  }

  func testRecordSwiftObjects_countsTheSnapshotsObjectsAndKnownSizes() {
    var builder = HeapSnapshot.Builder()
    builder.addObject(id: 1, type: "A", size: 48)
    builder.addObject(id: 2, type: "B")
    builder.addObject(id: 3, type: "C", size: 16)
    var recorded = ProcessMemory(residentBytes: 1)
    recorded.recordSwiftObjects(of: builder.snapshot)
    XCTAssertEqual(recorded, ProcessMemory(swiftObjectCount: 3, swiftObjectBytes: 64, residentBytes: 1))
  }

  // MARK: - Shown

  func testSummary_namesTheThreeViews() {
    XCTAssertEqual(
      memory.summary,
      "RSS 412 MiB (anonymous 380 MiB), malloc 300 MiB in use + 80 MiB free in 8 arenas, Swift objects 51,234 (12 MiB)")
    XCTAssertEqual(ProcessMemory(swiftObjectCount: 1, mallocFreeInArenas: 1536).summary, "malloc 1.5 KiB free, Swift objects 1")
    XCTAssertEqual(ProcessMemory().summary, "")
  }

  func testDescribeBytes_usesBinaryUnits() {
    XCTAssertEqual(
      [0, 1, 1023, 1024, 1536, 10 * 1024 + 100, 100 * 1024, 1_048_575, 5 << 30, -2048].map(ProcessMemory.describe(bytes:)),
      ["0 bytes", "1 byte", "1023 bytes", "1 KiB", "1.5 KiB", "10.1 KiB", "100 KiB", "1 MiB", "5 GiB", "-2 KiB"])
  }

  func testAnalysisReports_showTheMemoryInTheHeader() {
    let analysis = HeapAnalysis(graph: ObjectGraph(snapshot(memory: memory)))
    let lines = analysis.renderText().split(separator: "\n", omittingEmptySubsequences: false)
    XCTAssertEqual(
      lines.prefix(3).last,
      "Memory at capture: RSS 412 MiB (anonymous 380 MiB), malloc 300 MiB in use + 80 MiB free in 8 arenas, Swift objects 51,234 (12 MiB)")
    XCTAssertTrue(
      analysis.renderJSON().contains(
        #""memory": {"swiftObjectCount": 51234, "swiftObjectBytes": 12582912, "mallocInUse": 314572800, "mallocFreeInArenas": 83886080, "mallocArenaBytes": 377487360, "mallocArenas": 8, "mallocMmapped": 20971520, "residentBytes": 432013312, "anonymousBytes": 398458880, "fileBackedBytes": 33554432, "virtualBytes": 2147483648}"#
      ), analysis.renderJSON())

    let without = HeapAnalysis(graph: ObjectGraph(snapshot(memory: nil)))
    XCTAssertFalse(without.renderText().contains("Memory at capture"))
    XCTAssertFalse(without.renderJSON().contains("\"memory\""))
  }
}
