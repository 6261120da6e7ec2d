import GzipCompression
import HeapGraph
import LeakTestSupport
import XCTest

/// The gzip files profiles are written in, by zlib: zlib's `inflate` and the system's `gzip -dc`
/// read back the input byte for byte (nothing, one byte, text that repeats, bytes that do not,
/// 16 MiB); the header has no time, so the same bytes give the same file; a profile compresses
/// to within a few percent of what `gzip -1` and `gzip -6` make of it.
final class GzipTests: XCTestCase {
  private func assertRoundTrips(_ bytes: [UInt8], _ message: String, file: StaticString = #filePath, line: UInt = #line) throws {
    let compressed = Gzip.compress(bytes)
    // No name, no time (0), extra flags 4 (the fastest compression), "unknown" operating system.
    XCTAssertEqual(Array(compressed.prefix(4)), [0x1F, 0x8B, 8, 0], "\(message): the header", file: file, line: line)
    XCTAssertEqual(Array(compressed[4..<10]), [0, 0, 0, 0, 4, 255], "\(message): no time in the header", file: file, line: line)
    XCTAssertEqual(try Gzip.decompress(compressed), bytes, "\(message): zlib's inflate", file: file, line: line)
    XCTAssertEqual(try ExternalTool.gunzip(compressed), bytes, "\(message): gzip -dc", file: file, line: line)
  }

  func testCompressedBytes_readBackByZlibAndGzip_asTheyWere() throws {
    var generator = SeededGenerator(seed: 7)
    let random = (0..<200_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
    let words = ["swift", "heap", "profile", "Growing.handle(_: Swift.Int, growing: Swift.Bool) -> ()", "0x55d0c1", "\u{0}\u{1}"]
    let text = (0..<40_000).map { _ in words.randomElement(using: &generator)! }.joined(separator: " ")
    try assertRoundTrips([], "nothing")
    try assertRoundTrips([42], "one byte")
    try assertRoundTrips([UInt8](repeating: 7, count: 100_000), "a run")
    try assertRoundTrips(random, "bytes that do not repeat")
    try assertRoundTrips(Array(text.utf8), "text that repeats")
    try assertRoundTrips(Array(random.prefix(70_000)) + Array(text.utf8.prefix(70_000)), "random, then text")
  }

  func testCompress_emptyInput_isAHeaderAnEmptyBlockAndAZeroTrailer() throws {
    let compressed = Gzip.compress([])
    XCTAssertEqual(compressed, [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 4, 255, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0], "CRC-32 0 and length 0")
    XCTAssertEqual(try Gzip.decompress(compressed), [])
  }

  func testCompress_largeInput_roundTripsAndEndsWithItsChecksumAndLength() throws {
    var generator = SeededGenerator(seed: 3)
    let words = (0..<4_096).map { index in Array("App.Module\(index % 37).function\(index)(_: Swift.Int) -> () ".utf8) }
    var large: [UInt8] = []
    large.reserveCapacity(16 << 20 + 100)
    while large.count < 16 << 20 { large += words[Int.random(in: 0..<words.count, using: &generator)] }
    let compressed = Gzip.compress(large)
    XCTAssertLessThan(compressed.count, large.count / 4, "text of a few thousand words compresses")
    let length = compressed.suffix(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    XCTAssertEqual(length, UInt32(large.count), "the trailer's length, modulo 2³²")
    XCTAssertEqual(try Gzip.decompress(compressed), large)
  }

  func testCompress_sameBytesTwice_givesTheSameFile() {
    var generator = SeededGenerator(seed: 5)
    let bytes = (0..<300_000).map { _ in UInt8.random(in: 0...15, using: &generator) }
    XCTAssertEqual(Gzip.compress(bytes), Gzip.compress(bytes))
  }

  func testDecompress_truncatedOrCorruptFile_throws() {
    let compressed = Gzip.compress(Array(String(repeating: "swift ", count: 1000).utf8))
    XCTAssertThrowsError(try Gzip.decompress(Array(compressed.dropLast(4))), "no length")
    var corrupt = compressed
    corrupt[corrupt.count - 5] ^= 0xFF
    XCTAssertThrowsError(try Gzip.decompress(corrupt), "a wrong checksum")
  }

  func testCompression_ofAProfile_isGzips() throws {
    var heap = HeapSnapshot.Builder()
    for stack in 0..<2_000 {
      heap.addStack(
        id: Int64(stack),
        frames: (0..<8).map { depth in
          StackFrame(
            pc: 0x55d0_0000 + UInt64(stack * 64 + depth), symbol: "App.Module\(depth).function\(stack % 97)(_: Swift.Int) -> ()",
            file: "/src/App/File\(stack % 13).swift", line: 10 + depth * stack % 300)
        })
    }
    for id in 0..<20_000 { heap.addObject(id: Int64(id), type: "App.Type\(id % 50)", size: 16 + id % 7 * 8, stack: Int64(id % 2_000)) }
    let serialized = HeapProfile(snapshot: heap.snapshot).pprofProfile.serializedBytes()
    let ours = Gzip.compress(serialized)
    let gzip = try ExternalTool("gzip", advice: "install gzip")
    let fastest = try gzip.run(["-1", "-c"], input: serialized).output
    let standard = try gzip.run(["-6", "-c"], input: serialized).output
    XCTAssertEqual(try ExternalTool.gunzip(ours), serialized)
    print(
      "profile of 2,000 stacks: \(serialized.count) bytes, gzipped by zlib \(ours.count), by gzip -1 \(fastest.count), -6 \(standard.count)"
    )
    XCTAssertLessThan(Double(ours.count), Double(fastest.count) * 1.05, "zlib's level 1 is gzip -1's")
    XCTAssertLessThan(Double(ours.count), Double(standard.count) * 1.15, "and close to the standard level's")
  }
}
