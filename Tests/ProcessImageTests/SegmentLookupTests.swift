// The module's internals can be imported for testing only where it is compiled for it: in debug
// builds. Parsing and lookups are not optimization-sensitive.
#if DEBUG
  import Foundation
  import LeakTestSupport
  import XCTest

  @testable import ProcessImage

  /// The pure parts of `ProcessImage`: reads by address over segments (across adjacent ones, up
  /// to a gap or a segment without bytes), the order of segments, the ranges of a core's files no
  /// program header covers, and `smaps`' changed pages.
  final class SegmentLookupTests: XCTestCase {
    private var storage: [UInt8] = Array(0..<48)

    /// Three segments over `storage`: 0x1000..<0x1010 and 0x1010..<0x1020 adjacent, then a gap,
    /// then 0x2000..<0x2010, and 0x3000..<0x3010 without contents.
    private func withImage(_ body: (ProcessImage) -> Void) {
      storage.withUnsafeBytes { bytes in
        let segment = { (start: UInt, offset: Int) in
          MemorySegment(
            start: start, end: start + 16, isWritable: true, isExecutable: false, path: nil,
            contents: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + 16)]))
        }
        let image = ProcessImage(
          origin: .process(1), processID: 1, executablePath: nil, commandLine: [],
          segments: [
            segment(0x2000, 32), segment(0x1010, 16), segment(0x1000, 0),
            MemorySegment(start: 0x3000, end: 0x3010, isWritable: false, isExecutable: false, path: "/lib/a.so", contents: nil),
          ],
          threads: [], pauseDuration: nil, diagnostics: [], ownedMappings: [])
        body(image)
      }
    }

    func testRead_acrossAdjacentSegments_stopsAtAGap() {
      withImage { image in
        XCTAssertEqual(image.segments.map(\.start), [0x1000, 0x1010, 0x2000, 0x3000], "sorted")
        var buffer = [UInt8](repeating: 0xff, count: 40)
        XCTAssertEqual(buffer.withUnsafeMutableBytes { image.read(into: $0, at: 0x1008) }, 24, "0x1008..<0x1020, then the gap")
        XCTAssertEqual(Array(buffer.prefix(24)), Array(8..<32))
        XCTAssertEqual(buffer[24], 0xff)
        XCTAssertEqual(image.readWord(at: 0x1000), UInt(littleEndian: (0..<8).reduce(0) { $0 | UInt($1) << (8 * $1) }))
        XCTAssertNil(image.readWord(at: 0x101c), "half of it past the end")
        XCTAssertNotNil(image.readWord(at: 0x1018), "the last word")
        XCTAssertNil(image.readWord(at: 0x3000), "a segment without contents")
        XCTAssertNil(image.readWord(at: 0xfff))
        XCTAssertEqual(buffer.withUnsafeMutableBytes { image.read(into: $0, at: 0x4000) }, 0)
      }
    }

    func testSegmentContaining_findsTheBoundaries() {
      withImage { image in
        XCTAssertEqual(image.segment(containing: 0x1000)?.start, 0x1000)
        XCTAssertEqual(image.segment(containing: 0x100f)?.start, 0x1000)
        XCTAssertEqual(image.segment(containing: 0x1010)?.start, 0x1010)
        XCTAssertEqual(image.segment(containing: 0x3008)?.path, "/lib/a.so")
        XCTAssertNil(image.segment(containing: 0x1020))
        XCTAssertNil(image.segment(containing: 0))
        XCTAssertNil(image.segment(containing: UInt.max))
      }
    }

    func testOrdered_leavesOutOverlaps() {
      let segment = { (start: UInt, end: UInt) in
        MemorySegment(start: start, end: end, isWritable: false, isExecutable: false, path: nil, contents: nil)
      }
      let (ordered, dropped) = ProcessImage.ordered([segment(0x3000, 0x4000), segment(0x1000, 0x2000), segment(0x1800, 0x2800)])
      XCTAssertEqual(ordered.map(\.start), [0x1000, 0x3000])
      XCTAssertEqual(dropped, ["segment 0x1800-0x2800 overlaps the one before it; left out"])
    }

    func testUncoveredFileRanges_areTheFilesPartsNoProgramHeaderHas() throws {
      var layoutBytes = Self.core(
        loads: [(0x1000, 0x1000), (0x4000, 0x1000)],
        files: [(0x1000, 0x3000, 0, "/bin/app"), (0x4000, 0x6000, 0x2000, "/lib/b.so")])
      let layout = try layoutBytes.withUnsafeMutableBytes { try CoreFileLayout(parsing: UnsafeRawBufferPointer($0), name: "core") }
      XCTAssertEqual(layout.fileMappings.map(\.path), ["/bin/app", "/lib/b.so"])
      let pieces = ProcessImage.uncoveredFileRanges(layout).map { "\(String($0.start, radix: 16))-\(String($0.end, radix: 16))" }
      XCTAssertEqual(pieces, ["2000-3000", "5000-6000"])
    }

    func testAnonymousKilobytes_byMappingStart() {
      let smaps = """
        7f0000000000-7f0000001000 r--p 00000000 fe:00 12   /lib/a.so
        Size:                  4 kB
        Anonymous:             0 kB
        7f0000001000-7f0000003000 r--p 00001000 fe:00 12   /lib/a.so
        Size:                  8 kB
        Anonymous:             4 kB
        """
      XCTAssertEqual(ProcessImage.anonymousKilobytes(inSmaps: smaps), [0x7f00_0000_0000: 0, 0x7f00_0000_1000: 4])
    }

    func testDamagedCores_failOrReadButNeverCrash() throws {
      let directory = try makeTemporaryDirectory(prefix: "process-image-damaged")
      let original = Self.core(loads: [(0x1000, 0x1000), (0x4000, 0x1000)], files: [(0x1000, 0x3000, 0, "/bin/true")])
      var generator = SeededGenerator(seed: 7)
      var failures = 0
      for round in 0..<400 {
        var damaged = original
        for _ in 0..<(1 + round % 8) {
          // Mostly in the headers and the note, where a changed byte changes what is read.
          let index = Int.random(in: 0..<min(damaged.count, 64 + 56 * 3 + 120), using: &generator)
          damaged[index] = UInt8.random(in: 0...255, using: &generator)
        }
        if round % 5 == 0 { damaged = Array(damaged.prefix(Int.random(in: 0..<damaged.count, using: &generator))) }
        let path = "\(directory)/core-\(round)"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(damaged)))
        do {
          let image = try ProcessImage.read(coreFile: path)
          for segment in image.segments { _ = image.readWord(at: segment.start) }
        } catch {
          failures += 1
          XCTAssertTrue(error.description.hasPrefix("\(path): "), error.description)
        }
      }
      XCTAssertGreaterThan(failures, 0)
    }

    /// The bytes of a minimal x86-64 core: its header, the loads (address, size; their bytes are
    /// zeros after the headers) and one note segment holding `NT_FILE` for `files`.
    static func core(loads: [(UInt64, UInt64)], files: [(UInt64, UInt64, UInt64, String)]) -> [UInt8] {
      func bytes<Value: FixedWidthInteger>(_ value: Value) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
      var fileNote = bytes(UInt64(files.count)) + bytes(UInt64(4096))
      for file in files { fileNote += bytes(file.0) + bytes(file.1) + bytes(file.2 / 4096) }
      for file in files { fileNote += Array(file.3.utf8) + [0] }
      while fileNote.count % 4 != 0 { fileNote.append(0) }
      let note = bytes(UInt32(5)) + bytes(UInt32(fileNote.count)) + bytes(UInt32(0x4649_4c45)) + Array("CORE\0\0\0\0".utf8) + fileNote
      let headerCount = loads.count + 1
      var offset = UInt64(64 + 56 * headerCount)
      var header: [UInt8] = [0x7f, 0x45, 0x4c, 0x46, 2, 1, 1] + Array(repeating: 0, count: 9)
      header += bytes(UInt16(4)) + bytes(UInt16(62)) + bytes(UInt32(1)) + bytes(UInt64(0)) + bytes(UInt64(64)) + bytes(UInt64(0))
      header += bytes(UInt32(0)) + bytes(UInt16(64)) + bytes(UInt16(56)) + bytes(UInt16(headerCount)) + bytes(UInt16(64))
      header += bytes(UInt16(0)) + bytes(UInt16(0))
      var programHeaders = bytes(UInt32(4)) + bytes(UInt32(4)) + bytes(offset) + Array(repeating: 0, count: 16)
      programHeaders += bytes(UInt64(note.count)) + bytes(UInt64(0)) + bytes(UInt64(4))
      offset += UInt64(note.count)
      for load in loads {
        programHeaders += bytes(UInt32(1)) + bytes(UInt32(4)) + bytes(offset) + bytes(load.0) + bytes(UInt64(0))
        programHeaders += bytes(load.1) + bytes(load.1) + bytes(UInt64(4096))
        offset += load.1
      }
      return header + programHeaders + note + Array(repeating: 0, count: Int(loads.reduce(0) { $0 + $1.1 }))
    }
  }
#endif
