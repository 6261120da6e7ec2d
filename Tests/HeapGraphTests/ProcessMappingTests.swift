import HeapGraph
import XCTest

/// `ProcessMapping` reads the lines of `/proc/PID/maps` as the kernel writes them: files with
/// spaces in their paths, removed files, anonymous memory and pseudo-paths; anything else is no
/// mapping.
final class ProcessMappingTests: XCTestCase {
  // MARK: - One line

  func testMapsLine_fileWithSpacesInItsPath_keepsThePathWhole() throws {
    let mapping = try XCTUnwrap(
      ProcessMapping(mapsLine: "55d0c1001000-55d0c1009000 r-xp 00001000 08:01 1234                       /app/My  Server v2"))
    XCTAssertEqual(
      mapping,
      ProcessMapping(
        start: 0x55d0_c100_1000, end: 0x55d0_c100_9000, permissions: "r-xp", offset: 0x1000, device: "08:01", inode: 1234,
        pathname: "/app/My  Server v2"))
    XCTAssertEqual(mapping.filePath, "/app/My  Server v2")
    XCTAssertFalse(mapping.isDeletedFile)
    XCTAssertFalse(mapping.isAnonymous)
    XCTAssertTrue(mapping.isReadable && mapping.isExecutable)
    XCTAssertFalse(mapping.isWritable || mapping.isShared)
  }

  func testMapsLine_removedFile_namesThePathWithoutDeleted() throws {
    let mapping = try XCTUnwrap(
      ProcessMapping(mapsLine: "7f3a10000000-7f3a10200000 r-xp 00040000 fd:02 99    /opt/my app/libA.so (deleted)"))
    XCTAssertEqual(mapping.pathname, "/opt/my app/libA.so (deleted)", "the kernel's text")
    XCTAssertEqual(mapping.filePath, "/opt/my app/libA.so")
    XCTAssertTrue(mapping.isDeletedFile)
    XCTAssertEqual(mapping.offset, 0x40000)
    XCTAssertEqual(mapping.device, "fd:02")
  }

  func testMapsLine_anonymousMemory_hasNoPathname_withOrWithoutTheTrailingSpace() throws {
    for line in ["7f3a20000000-7f3a20021000 rw-p 00000000 00:00 0 ", "7f3a20000000-7f3a20021000 rw-p 00000000 00:00 0"] {
      let mapping = try XCTUnwrap(ProcessMapping(mapsLine: line), line)
      XCTAssertEqual(mapping, ProcessMapping(start: 0x7f3a_2000_0000, end: 0x7f3a_2002_1000, permissions: "rw-p"), line)
      XCTAssertTrue(mapping.isAnonymous)
      XCTAssertNil(mapping.filePath)
      XCTAssertFalse(mapping.isDeletedFile)
      XCTAssertTrue(mapping.isReadable && mapping.isWritable)
      XCTAssertFalse(mapping.isExecutable)
    }
  }

  func testMapsLine_pseudoPaths_areNamedButAreNoFiles() throws {
    let lines = [
      "7ffd0c5e1000-7ffd0c602000 rw-p 00000000 00:00 0                          [stack]",
      "55d0c2a4e000-55d0c2a6f000 rw-p 00000000 00:00 0                          [heap]",
      "7ffd0c7f2000-7ffd0c7f4000 r-xp 00000000 00:00 0                          [vdso]",
      "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]",
      "7f3a30000000-7f3a30001000 rw-s 00000000 00:00 0                          [anon:capture progress]",
    ]
    let mappings = try lines.map { try XCTUnwrap(ProcessMapping(mapsLine: $0), $0) }
    XCTAssertEqual(mappings.map(\.pathname), ["[stack]", "[heap]", "[vdso]", "[vsyscall]", "[anon:capture progress]"])
    XCTAssertEqual(mappings.map(\.filePath), [nil, nil, nil, nil, nil])
    XCTAssertEqual(mappings.map(\.isAnonymous), [false, false, false, false, false])
    XCTAssertEqual(mappings[3].end, 0xffff_ffff_ff60_1000, "the top of the address space")
    XCTAssertFalse(mappings[3].isReadable)
    XCTAssertTrue(mappings[4].isShared)
  }

  func testMapsLine_fileOnADeviceWithALongMajor_reads() throws {
    let mapping = try XCTUnwrap(ProcessMapping(mapsLine: "7f3a00000000-7f3a00100000 r--p 00000000 103:02 1835011  /usr/lib/libc.so.6"))
    XCTAssertEqual(mapping.device, "103:02")
    XCTAssertEqual(mapping.inode, 1_835_011)
  }

  func testMapsLine_notAMapping_isNil() {
    let lines = [
      "",
      "not a mapping",
      "55d0c1001000-55d0c1009000 r-xp 00001000 08:01",  // no inode
      "55d0c1001000 r-xp 00001000 08:01 1234 /app/Server",  // no end
      "55d0c1009000-55d0c1001000 r-xp 00001000 08:01 1234 /app/Server",  // end before start
      "55d0c1001000-55d0c1001000 r-xp 00001000 08:01 1234 /app/Server",  // empty
      "55d0c1001000-55d0c1009000 rx 00001000 08:01 1234 /app/Server",  // permissions not four letters
      "55d0c1001000-55d0c1009000 r-xq 00001000 08:01 1234 /app/Server",
      "55d0c1001000-55d0c1009000 r-xp 0000g000 08:01 1234 /app/Server",  // offset not hex
      "55d0c1001000-55d0c1009000 r-xp 00001000 0801 1234 /app/Server",  // no device
      "55d0c1001000-55d0c1009000 r-xp 00001000 08:01 12a4 /app/Server",  // inode not decimal
      "Name:\tServer",  // another file of /proc
    ]
    for line in lines { XCTAssertNil(ProcessMapping(mapsLine: line), line) }
  }

  // MARK: - A whole file

  func testMappingsInMaps_skipsWhatIsNoMapping_inTheFilesOrder() {
    let maps = """
      55d0c1000000-55d0c1001000 r--p 00000000 08:01 1234                       /app/My Server
      55d0c1001000-55d0c1009000 r-xp 00001000 08:01 1234                       /app/My Server
      not a mapping
      7f3a20000000-7f3a20021000 rw-p 00000000 00:00 0 
      7ffd0c5e1000-7ffd0c602000 rw-p 00000000 00:00 0                          [stack]

      """
    XCTAssertEqual(
      ProcessMapping.mappings(inMaps: maps).map { "\(String($0.start, radix: 16)) \($0.permissions) \($0.pathname)" },
      ["55d0c1000000 r--p /app/My Server", "55d0c1001000 r-xp /app/My Server", "7f3a20000000 rw-p ", "7ffd0c5e1000 rw-p [stack]"])
    XCTAssertEqual(ProcessMapping.mappings(inMaps: ""), [])
  }

  func testMappingsInMaps_ofThisProcess_readsEveryLine() throws {
    let text = String(decoding: try FileBytes.read("/proc/self/maps"), as: UTF8.self)
    let lines = text.split(separator: "\n")
    let mappings = ProcessMapping.mappings(inMaps: text)
    XCTAssertEqual(mappings.count, lines.count, "every line the kernel wrote is a mapping:\n\(text)")
    XCTAssertTrue(mappings.contains { $0.pathname == "[stack]" && $0.isReadable && $0.isWritable })
    XCTAssertTrue(mappings.contains { $0.filePath?.hasSuffix("/libswiftCore.so") == true && $0.isExecutable })
    XCTAssertEqual(mappings.map(\.start), mappings.map(\.start).sorted(), "in address order")
  }
}
