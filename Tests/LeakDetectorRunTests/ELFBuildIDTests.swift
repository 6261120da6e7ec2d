import CELFBuildID
import Foundation
import HeapGraph
import LeakDetectorRun
import LeakTestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// The build-id reader (`CELFBuildID`) that the agent's runtime check and `--version` share:
/// one parser of note bytes, for notes aligned to 4 or 8 bytes, several to a segment, cut
/// short; and the two inputs, an image loaded in this process and a file on disk, checked
/// against `readelf`.
final class ELFBuildIDTests: XCTestCase {
  private let buildID: [UInt8] = Array(0x01...0x14)  // 20 bytes, as linkers write by default

  // MARK: - Notes

  func testNotes_buildIDAfterOtherNotes_alignedTo4_isFound() {
    let notes =
      Self.note(name: "GNU", type: 4, descriptor: Array("gold 1.16\0".utf8), alignment: 4)  // NT_GNU_GOLD_VERSION
      + Self.note(name: "GNU", type: 1, descriptor: [0, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0], alignment: 4)  // NT_GNU_ABI_TAG
      + Self.note(name: "Go", type: 3, descriptor: [9, 9, 9, 9], alignment: 4)  // type 3 of another owner
      + Self.note(name: "GNU", type: 3, descriptor: buildID, alignment: 4)
    XCTAssertEqual(Self.buildID(inNotes: notes, alignment: 4), buildID)
  }

  func testNotes_alignedTo8_afterAPropertyNoteAndAnOddName_isFound() {
    // NT_GNU_PROPERTY_TYPE_0 first.
    let notes =
      Self.note(name: "GNU", type: 5, descriptor: [2, 0, 0, 0xc0, 4, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0], alignment: 8)
      + Self.note(name: "vendor", type: 7, descriptor: [1, 2, 3], alignment: 8)
      + Self.note(name: "GNU", type: 3, descriptor: buildID, alignment: 8)
    XCTAssertEqual(Self.buildID(inNotes: notes, alignment: 8), buildID)
    XCTAssertNotEqual(Self.buildID(inNotes: notes, alignment: 4), buildID, "the padding of 8-byte notes read as 4-byte ones")
  }

  func testNotes_alignmentBelow4_readsAs4_andAnyButFourOrEight_isCorrupt() {
    let notes =
      Self.note(name: "vendor", type: 7, descriptor: [1], alignment: 4) + Self.note(name: "GNU", type: 3, descriptor: buildID, alignment: 4)
    for alignment in [0, 1, 2, 3, 4] { XCTAssertEqual(Self.buildID(inNotes: notes, alignment: alignment), buildID, "\(alignment)") }
    for alignment in [5, 16, 4096] { XCTAssertEqual(Self.buildID(inNotes: notes, alignment: alignment), [], "\(alignment)") }
  }

  func testNotes_truncated_haveNoBuildID() {
    let notes =
      Self.note(name: "GNU", type: 4, descriptor: [1, 2, 3, 4], alignment: 4)
      + Self.note(name: "GNU", type: 3, descriptor: buildID, alignment: 4)
    XCTAssertEqual(Self.buildID(inNotes: Array(notes.dropLast()), alignment: 4), [], "the descriptor cut by a byte")
    XCTAssertEqual(Self.buildID(inNotes: Array(notes.prefix(20 + 12 + 2)), alignment: 4), [], "its name cut")
    XCTAssertEqual(Self.buildID(inNotes: Array(notes.prefix(20 + 7)), alignment: 4), [], "its header cut")
    XCTAssertEqual(Self.buildID(inNotes: [], alignment: 4), [])
    var lying = notes
    lying[4] = 0xff  // the first note's descriptor runs past the end
    XCTAssertEqual(Self.buildID(inNotes: lying, alignment: 4), [])
  }

  func testNotes_onlyAGNUNoteOfType3_isABuildID() {
    XCTAssertEqual(Self.buildID(inNotes: Self.note(name: "GNU", type: 1, descriptor: buildID, alignment: 4), alignment: 4), [])
    XCTAssertEqual(Self.buildID(inNotes: Self.note(name: "GNV", type: 3, descriptor: buildID, alignment: 4), alignment: 4), [])
    XCTAssertEqual(Self.buildID(inNotes: Self.note(name: "GNUX", type: 3, descriptor: buildID, alignment: 4), alignment: 4), [])
  }

  func testNotes_buildIDLongerThanTheCapacity_isCut() {
    let notes = Self.note(name: "GNU", type: 3, descriptor: buildID, alignment: 4)
    XCTAssertEqual(Self.buildID(inNotes: notes, alignment: 4, capacity: 8), Array(buildID.prefix(8)))
  }

  // MARK: - Files

  func testFile_twoNoteSegments_theBuildIDInTheSecond_isFound() throws {
    let path = try makeTemporaryDirectory(prefix: "build-id") + "/image.so"
    try Data(
      Self.elfFile(segments: [
        (Self.note(name: "GNU", type: 5, descriptor: Array(repeating: 0, count: 16), alignment: 8), 8),
        (Self.note(name: "GNU", type: 3, descriptor: buildID, alignment: 4), 4),
      ])
    ).write(to: URL(fileURLWithPath: path))
    XCTAssertEqual(Self.buildID(ofFile: path), buildID)
  }

  func testFile_notThisProcessesKindOfELF_orNoELF_orCutShort_hasNoBuildID() throws {
    let directory = try makeTemporaryDirectory(prefix: "build-id")
    let image = Self.elfFile(segments: [(Self.note(name: "GNU", type: 3, descriptor: buildID, alignment: 4), 4)])
    var otherClass = image
    otherClass[4] = 1  // ELFCLASS32
    var otherByteOrder = image
    otherByteOrder[5] = 2  // ELFDATA2MSB
    let files: [(String, [UInt8])] = [
      ("32-bit", otherClass), ("big-endian", otherByteOrder), ("text", Array("not an ELF file\n".utf8)),
      ("notes cut", Array(image.dropLast(8))), ("headers cut", Array(image.prefix(80))), ("empty", []),
    ]
    for (name, bytes) in files {
      try Data(bytes).write(to: URL(fileURLWithPath: "\(directory)/\(name)"))
      XCTAssertEqual(Self.buildID(ofFile: "\(directory)/\(name)"), [], name)
    }
    XCTAssertEqual(Self.buildID(ofFile: "\(directory)/missing"), [])
    XCTAssertEqual(Self.buildID(ofFile: directory), [], "a directory")
  }

  func testFile_theSwiftRuntime_isTheBuildIDReadelfShows() throws {
    let runtime = try loadedSwiftRuntimePath()
    let notes = try ExternalTool("readelf", advice: "install binutils, which the Swift toolchain needs").run(["-n", runtime])
    XCTAssertEqual(notes.status, 0, notes.error)
    let shown = try XCTUnwrap(notes.text.firstMatch(of: /Build ID: ([0-9a-f]+)/)?.output.1, notes.text)
    XCTAssertEqual(BuildID(Self.buildID(ofFile: runtime)).description, String(shown), runtime)
  }

  // MARK: - Loaded images

  func testLoadedImage_theSwiftRuntimeInMemory_isItsFilesBuildID() throws {
    let runtime = try loadedSwiftRuntimePath()
    // Its mapping of the file's start holds the ELF header and the program headers. The
    // runtime's first segment is linked at address 0, so that mapping's start is its base.
    let maps = String(decoding: try FileBytes.read("/proc/self/maps"), as: UTF8.self)
    let first = try XCTUnwrap(ProcessMapping.mappings(inMaps: maps).first { $0.filePath == runtime && $0.offset == 0 })
    let base = UInt(first.start)
    let header = try XCTUnwrap(UnsafeRawPointer(bitPattern: base)).load(as: Elf64_Ehdr.self)
    let headers = try XCTUnwrap(UnsafePointer<Elf64_Phdr>(bitPattern: base + UInt(header.e_phoff)))
    let loads = UnsafeBufferPointer(start: headers, count: Int(header.e_phnum)).filter { $0.p_type == 1 }  // PT_LOAD
    XCTAssertEqual(loads.first?.p_vaddr, 0, "\(runtime): its base is not where its first segment is mapped")

    var bytes = [UInt8](repeating: 0, count: Int(CLEAK_BUILD_ID_CAPACITY))
    let length = cleak_build_id_of_loaded_image(base, headers, Int(header.e_phnum), &bytes, bytes.count)
    XCTAssertEqual(length, 20)
    XCTAssertEqual(Array(bytes.prefix(length)), Self.buildID(ofFile: runtime))
  }

  // MARK: - Fixtures

  private static func buildID(inNotes notes: [UInt8], alignment: Int, capacity: Int = Int(CLEAK_BUILD_ID_CAPACITY)) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: capacity)
    let length = cleak_build_id_in_notes(notes, notes.count, alignment, &bytes, capacity)
    return Array(bytes.prefix(length))
  }

  private static func buildID(ofFile path: String) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: Int(CLEAK_BUILD_ID_CAPACITY))
    let length = cleak_build_id_of_file(path, &bytes, bytes.count)
    return Array(bytes.prefix(length))
  }

  /// One ELF note: its header (name size with the terminating zero, descriptor size, type, as
  /// 32-bit little-endian words), the name and the descriptor, each padded to `alignment`.
  private static func note(name: String, type: UInt32, descriptor: [UInt8], alignment: Int) -> [UInt8] {
    let nameBytes = Array(name.utf8) + [0]
    func padded(_ bytes: [UInt8], after start: Int) -> [UInt8] {
      bytes + Array(repeating: 0, count: (alignment - (start + bytes.count) % alignment) % alignment)
    }
    let header = [UInt32(nameBytes.count), UInt32(descriptor.count), type].flatMap(littleEndian)
    let named = padded(header + nameBytes, after: 0)
    return named + padded(descriptor, after: named.count)
  }

  /// A 64-bit little-endian ELF file with one `PT_NOTE` program header per segment (its notes
  /// and `p_align`), the notes after the headers, each at an offset aligned to 8.
  private static func elfFile(segments: [(notes: [UInt8], alignment: Int)]) -> [UInt8] {
    let headerSize = 64
    let programHeaderSize = 56
    var offset = headerSize + programHeaderSize * segments.count
    var programHeaders: [UInt8] = []
    var notes: [UInt8] = []
    for segment in segments {
      programHeaders += littleEndian(UInt32(4)) + littleEndian(UInt32(4))  // PT_NOTE, PF_R
      programHeaders += [offset, offset, offset, segment.notes.count, segment.notes.count, segment.alignment].flatMap {
        littleEndian(UInt64($0))  // p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align
      }
      let padding = Array(repeating: UInt8(0), count: (8 - segment.notes.count % 8) % 8)
      notes += segment.notes + padding
      offset += segment.notes.count + padding.count
    }
    var header: [UInt8] = [0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0] + Array(repeating: 0, count: 8)  // ELFCLASS64, ELFDATA2LSB
    header += littleEndian(UInt16(3)) + littleEndian(UInt16(62)) + littleEndian(UInt32(1))  // ET_DYN, EM_X86_64, EV_CURRENT
    header += littleEndian(UInt64(0)) + littleEndian(UInt64(headerSize)) + littleEndian(UInt64(0))  // e_entry, e_phoff, e_shoff
    header += littleEndian(UInt32(0)) + littleEndian(UInt16(headerSize)) + littleEndian(UInt16(programHeaderSize))
    header += littleEndian(UInt16(segments.count)) + littleEndian(UInt16(64)) + littleEndian(UInt16(0)) + littleEndian(UInt16(0))
    return header + programHeaders + notes
  }
}

/// The bytes of `value`, least significant first.
private func littleEndian<Value: FixedWidthInteger>(_ value: Value) -> [UInt8] {
  (0..<Value.bitWidth / 8).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
}
