import HeapGraph
import LeakTestSupport
import XCTest

/// The gzip files profiles are written in: what the system's `gzip -dc` reads back is the input,
/// byte for byte, for text that repeats, bytes that do not, matches at the window's far end and
/// of the longest length; the CRC-32 is gzip's.
final class GzipTests: XCTestCase {
  private func assertRoundTrips(_ bytes: [UInt8], _ message: String, file: StaticString = #filePath, line: UInt = #line) throws {
    let compressed = Gzip.compress(bytes)
    XCTAssertEqual(Array(compressed.prefix(3)), [0x1F, 0x8B, 8], message, file: file, line: line)
    XCTAssertEqual(try ExternalTool.gunzip(compressed), bytes, message, file: file, line: line)
  }

  func testCRC32_isGzipsChecksum() {
    XCTAssertEqual(CRC32.checksum(Array("123456789".utf8)), 0xCBF4_3926)
    XCTAssertEqual(CRC32.checksum([]), 0)
    XCTAssertEqual(CRC32.checksum(Array("The quick brown fox jumps over the lazy dog".utf8)), 0x414F_A339)
  }

  func testCompressedBytes_readBackByGzip_asTheyWere() throws {
    var generator = SeededGenerator(seed: 7)
    let random = (0..<200_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
    let words = ["swift", "heap", "profile", "Growing.handle(_: Swift.Int, growing: Swift.Bool) -> ()", "0x55d0c1", "\u{0}\u{1}"]
    let text = (0..<40_000).map { _ in words.randomElement(using: &generator)! }.joined(separator: " ")
    try assertRoundTrips([], "nothing")
    try assertRoundTrips([42], "one byte")
    try assertRoundTrips(Array("abcabcabcabcabc".utf8), "a match that overlaps what it copies")
    try assertRoundTrips([UInt8](repeating: 7, count: 100_000), "a run: matches of 258 bytes")
    try assertRoundTrips(random, "bytes that do not repeat: stored blocks")
    try assertRoundTrips(Array(text.utf8), "text that repeats")
    let far = Array(random.prefix(40)) + Array(random[1_000..<(1_000 + 32_768 - 40)]) + Array(random.prefix(40))
    try assertRoundTrips(far, "a match 32,768 bytes back, the window's end")
    try assertRoundTrips(Array(random.prefix(70_000)) + Array(text.utf8.prefix(70_000)), "stored-sized random, then text")
  }

  func testDeflate_codesRepeatsWithMatches_andStoresWhatDoesNotRepeat() throws {
    var generator = SeededGenerator(seed: 11)
    let random = (0..<100_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
    let stored = Deflate.compress(random)
    XCTAssertEqual(stored.count, random.count + 5 * 2, "two stored blocks of at most 65,535 bytes")
    XCTAssertEqual(stored, Deflate.storedBlocks(random))
    let repeated = Array(String(repeating: "swift ", count: 1000).utf8)
    XCTAssertEqual(Deflate.compress(repeated).count, 50, "6,000 bytes: six literals, then matches of 258 bytes")
    XCTAssertEqual(Deflate.compress([]), [3, 0], "an empty final block of fixed codes")
  }

  func testCompression_ofAProfile_isCloseToGzips() throws {
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
    let theirs = try ExternalTool("gzip", advice: "install gzip").run(["-6", "-c"], input: serialized).output
    XCTAssertEqual(try ExternalTool.gunzip(ours), serialized)
    print("profile of 2,000 stacks: \(serialized.count) bytes, gzipped here \(ours.count), by gzip -6 \(theirs.count)")
    XCTAssertLessThan(Double(ours.count), Double(theirs.count) * 1.6, "fixed codes and greedy matching cost little against gzip -6")
  }
}
