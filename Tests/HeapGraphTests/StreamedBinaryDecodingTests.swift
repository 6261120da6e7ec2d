import Foundation
import HeapGraph
import LeakTestSupport
import XCTest

/// A binary snapshot decoded from its file as it is read (``HeapSnapshot/init(binaryInput:)``)
/// is the snapshot decoded from its bytes held whole, and every problem is the same error.
final class StreamedBinaryDecodingTests: XCTestCase {
  private var directory = ""

  override func setUpWithError() throws {
    directory = NSTemporaryDirectory() + "streamed-binary-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(atPath: directory)
  }

  /// A snapshot of `count` objects, whose process name is a string as long as `processLength`
  /// (longer than the reader's window when it is 3 MB).
  private func snapshot(objects count: Int, processLength: Int = 3 << 20) -> HeapSnapshot {
    var builder = HeapSnapshot.Builder(metadata: .init(tool: "t", process: String(repeating: "p", count: processLength)))
    builder.addStack(id: 1, frames: [StackFrame(pc: 0x10, symbol: "main", file: "main.swift", line: 3)])
    for id in 1...Int64(count) {
      builder.addObject(id: id, type: "T\(id % 7)", address: UInt64(id) * 16, size: Int(id % 100), stack: id % 3 == 0 ? 1 : nil)
    }
    for id in 1..<Int64(count) {
      builder.addReference(from: id, to: id + 1, label: "next", ownership: id % 5 == 0 ? .weak : .strong)
    }
    builder.addRoot(object: 1, kind: "global", label: "head")
    return builder.snapshot
  }

  private func written(_ bytes: [UInt8], as name: String = "heap.heapsnapshot") throws -> FileInput {
    let path = directory + "/" + name
    try FileBytes.writeAtomically(bytes, to: path)
    return try XCTUnwrap(try FileInput(regularFileAt: path))
  }

  private func streamed(_ bytes: [UInt8]) throws -> Result<HeapSnapshot, BinaryDecodingError> {
    let input = try written(bytes)
    return Result { () throws(BinaryDecodingError) in try HeapSnapshot(binaryInput: input) }
  }

  private func whole(_ bytes: [UInt8]) -> Result<HeapSnapshot, BinaryDecodingError> {
    Result { () throws(BinaryDecodingError) in try HeapSnapshot(binaryBytes: bytes) }
  }

  private func message(_ result: Result<HeapSnapshot, BinaryDecodingError>) -> String? {
    if case .failure(let error) = result { error.message } else { nil }
  }

  func testBinaryInput_largerThanTheWindow_isTheSnapshot() throws {
    let snapshot = snapshot(objects: 200_000)
    let bytes = snapshot.binaryBytes()
    XCTAssertGreaterThan(bytes.count, 8 << 20)
    let input = try written(bytes)
    XCTAssertEqual(HeapSnapshot.encoding(of: try input.peek(4)), .binary)
    XCTAssertEqual(try HeapSnapshot(binaryInput: input), snapshot)
  }

  func testBinaryInput_truncatedOrWithTrailingBytes_failsAsTheWholeBufferDoes() throws {
    // Over two windows long: truncations in the first window, across its end, in the columns
    // read straight into their arrays, and in the strings and stacks after them.
    let bytes = snapshot(objects: 60_000, processLength: 10).binaryBytes()
    XCTAssertGreaterThan(bytes.count, 2 << 20)
    var random = SeededGenerator(seed: 7)
    let window = 1 << 20
    let lengths =
      Array(0..<120) + [window - 1, window, window + 1, 2 * window, bytes.count - 1]
      + (0..<40).map { _ in Int.random(in: 120..<bytes.count, using: &random) }
    for length in lengths {
      let truncated = Array(bytes[..<length])
      let expected = message(whole(truncated))
      XCTAssertNotNil(expected, "truncated to \(length) bytes")
      XCTAssertEqual(message(try streamed(truncated)), expected, "truncated to \(length) bytes")
    }
    XCTAssertEqual(message(try streamed(bytes + [0])), message(whole(bytes + [0])))
    XCTAssertNotNil(message(whole(bytes + [0])))
  }

  func testBinaryInput_countLargerThanTheFile_isRefusedBeforeAllocating() throws {
    var bytes = snapshot(objects: 10).binaryBytes()
    // The count of type names comes after the magic, the version (4: the stack has a frame),
    // three optional strings (the tool "t", no creation time, the process), the diagnostics'
    // count and the byte saying the memory is absent.
    let typeNamesCount = 4 + 4 + (1 + 8 + 1) + 1 + (1 + 8 + (3 << 20)) + 8 + 1
    withUnsafeBytes(of: Int64.max.littleEndian) { bytes.replaceSubrange(typeNamesCount..<typeNamesCount + 8, with: $0) }
    let expected = message(whole(bytes))
    XCTAssertEqual(expected, "strings: a count of \(Int64.max) at offset \(typeNamesCount) exceeds the data")
    XCTAssertEqual(message(try streamed(bytes)), expected)
  }

  func testFileInput_ofADirectoryOrAPipe_isNil_andOfNothing_isAFailure() throws {
    XCTAssertNil(try FileInput(regularFileAt: directory))
    XCTAssertNil(try FileInput(regularFileAt: "/dev/null"))
    XCTAssertThrowsError(try FileInput(regularFileAt: directory + "/missing")) { error in
      XCTAssertEqual("\(error)", "\(directory)/missing: cannot open: No such file or directory")
    }
  }
}
