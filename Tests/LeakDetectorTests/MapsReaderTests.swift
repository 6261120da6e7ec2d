import CLeakRuntime
import Foundation
import HeapGraph
import LeakTestSupport
import XCTest

/// `cleak_for_each_mapping_in`, the C reader of `/proc/PID/maps` that capture children and the
/// census process use, visits every mapping once with its bounds and permissions, whatever its
/// path, and agrees with `ProcessMapping`, the Swift reader.
final class MapsReaderTests: XCTestCase {
  func testMapsReader_pathsWithSpacesRemovedFilesAnonymousMemoryAndStack_visitsEachMappingOnce() throws {
    // Longer than the reader's 512-byte line buffer, with what looks like a mapping where the
    // buffer ends: the rest of a path is never a line of its own.
    let longLine = "7f3a30000000-7f3a30001000 r--p 00000000 08:01 77                         "
    let longPath =
      "/opt/" + String(repeating: "d", count: 511 - longLine.utf8.count - "/opt//".utf8.count)
      + "/7f0000000000-7f0000001000 rwxp 0 00:00 0/lib.so"
    let maps = """
      55d0c1001000-55d0c1009000 r-xp 00001000 08:01 1234                       /app/My  Server v2
      7f3a10000000-7f3a10200000 r-xp 00040000 fd:02 99                         /opt/my app/libA.so (deleted)
      7f3a20000000-7f3a20021000 rw-p 00000000 00:00 0 
      7f3a20021000-7f3a20022000 ---p 00000000 00:00 0
      \(longLine)\(longPath)
      7ffd0c5e1000-7ffd0c602000 rw-p 00000000 00:00 0                          [stack]

      """
    let path = try makeTemporaryDirectory(prefix: "maps-reader") + "/maps"
    try Data(maps.utf8).write(to: URL(fileURLWithPath: path))

    let visited = try XCTUnwrap(Self.mappings(readFrom: path))
    XCTAssertEqual(
      visited.map { "\(String($0.start, radix: 16))-\(String($0.end, radix: 16)) \($0.permissions)" },
      [
        "55d0c1001000-55d0c1009000 r-xp", "7f3a10000000-7f3a10200000 r-xp", "7f3a20000000-7f3a20021000 rw-p",
        "7f3a20021000-7f3a20022000 ---p", "7f3a30000000-7f3a30001000 r--p", "7ffd0c5e1000-7ffd0c602000 rw-p",
      ])
    XCTAssertEqual(visited.map(\.start), ProcessMapping.mappings(inMaps: maps).map { UInt($0.start) }, "as the Swift reader reads them")
  }

  func testMapsReader_ofThisProcess_agreesWithTheSwiftReader() throws {
    // One copy of the file, read by both: the process's mappings change while tests run.
    let text = String(decoding: try FileBytes.read("/proc/self/maps"), as: UTF8.self)
    let path = try makeTemporaryDirectory(prefix: "maps-reader") + "/maps"
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    let visited = try XCTUnwrap(Self.mappings(readFrom: path))
    let parsed = ProcessMapping.mappings(inMaps: text)
    XCTAssertGreaterThan(parsed.count, 10)
    XCTAssertEqual(visited.map(\.start), parsed.map { UInt($0.start) })
    XCTAssertEqual(visited.map(\.end), parsed.map { UInt($0.end) })
    XCTAssertEqual(visited.map(\.permissions), parsed.map(\.permissions))
  }

  func testMapsReader_missingFile_readsNothing() {
    XCTAssertNil(Self.mappings(readFrom: "/nonexistent/maps"))
  }

  /// What the C reader visits in the file at `path`, or `nil` when it cannot read it.
  private static func mappings(readFrom path: String) -> [(start: UInt, end: UInt, permissions: String)]? {
    var visited: [(start: UInt, end: UInt, permissions: String)] = []
    let read = withUnsafeMutablePointer(to: &visited) { list in
      cleak_for_each_mapping_in(
        path,
        { start, end, permissions, context in
          let list = context!.assumingMemoryBound(to: [(start: UInt, end: UInt, permissions: String)].self)
          list.pointee.append((start, end, String(cString: permissions!)))
        }, list)
    }
    return read == 0 ? nil : visited
  }
}
