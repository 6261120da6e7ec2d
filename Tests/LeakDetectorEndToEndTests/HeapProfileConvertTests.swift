import Foundation
import HeapGraph
import LeakTestSupport
import XCTest

/// `leak-detector convert --to pprof` read by the real client, `go tool pprof` (Debian's
/// golang-go; a machine without it fails these tests and says what to install): the committed
/// snapshot's allocating functions with their lines, its objects and bytes, its types as tags,
/// and the whole profile as `-raw` prints it.
final class HeapProfileConvertTests: XCTestCase {
  private let fixture = LeakTestSupport.directory(of: #filePath) + "/Fixtures/report-heap.json"

  /// `go tool pprof ARGUMENTS`, in UTC (the profile's time is printed in the local zone).
  static func pprof(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
    let run = try ExternalTool.go().run(["tool", "pprof"] + arguments, environment: ["TZ": "UTC"])
    XCTAssertEqual(run.status, 0, "go tool pprof \(arguments.joined(separator: " ")): \(run.error)", file: file, line: line)
    XCTAssertEqual(run.error, "", "go tool pprof says nothing on standard error", file: file, line: line)
    return run.text
  }

  private func converted() throws -> String {
    let path = try makeTemporaryDirectory(prefix: "convert-pprof") + "/heap.pb.gz"
    let result = try BuiltProgram("leak-detector").run(["convert", fixture, "--to", "pprof", "--output", path])
    XCTAssertEqual(result.status, 0, result.standardError)
    XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(2)), [0x1F, 0x8B], "gzip")
    return path
  }

  func testTop_namesTheAllocatingFunctions_withTheSnapshotsBytes() throws {
    let top = try Self.pprof(["-top", "-sample_index=inuse_space", try converted()])
    XCTAssertTrue(top.contains("Type: inuse_space"), top)
    XCTAssertTrue(top.contains("Showing nodes accounting for 1304B, 100% of 1304B total"), "the 8 objects' sizes:\n\(top)")
    for line in [
      "1048B 80.37% 80.37%      1048B 80.37%  Vendor.Pool.make() -> Vendor.Pool",
      "144B 11.04% 91.41%       144B 11.04%  App.Screen.cache() -> App.Cache",
      "48B  3.68% 95.09%        48B  3.68%  App.Screen.show() -> ()",
      "32B  2.45% 97.55%        32B  2.45%  (no stack recorded)",
      "32B  2.45%   100%        32B  2.45%  closure #1 in App.Feed.load() -> ()",
    ] {
      XCTAssertTrue(top.contains(line), "\(line)\nin\n\(top)")
    }
    XCTAssertFalse(top.contains("__allocating_init"), "the allocating function, past the initializer:\n\(top)")

    let objects = try Self.pprof(["-top", "-sample_index=inuse_objects", "-lines", try converted()])
    XCTAssertTrue(objects.contains("Showing nodes accounting for 8, 100% of 8 total"), objects)
    XCTAssertTrue(objects.contains("App.Screen.cache() -> App.Cache /ci/checkout/Sources/App/Screen.swift:30"), objects)
    XCTAssertTrue(objects.contains("App.Screen.show() -> () /ci/checkout/Sources/App/Screen.swift:14"), objects)
  }

  func testObjectTags_focusOnAType() throws {
    let path = try converted()
    let tags = try Self.pprof(["-tags", path])
    XCTAssertTrue(tags.contains("object: Total 1.3kB"), tags)
    XCTAssertTrue(tags.contains("80.0B ( 6.13%): App.Entry"), tags)
    XCTAssertTrue(tags.contains("bytes: Total 1.3kB"), "the average size, as in Go's profiles:\n\(tags)")
    let entries = try Self.pprof(["-top", "-tagfocus=object=App.Entry", path])
    XCTAssertTrue(entries.contains("Showing nodes accounting for 80B, 6.13% of 1304B total"), entries)
    XCTAssertTrue(entries.contains("80B  6.13%  6.13%        80B  6.13%  App.Screen.cache() -> App.Cache"), entries)
  }

  func testRaw_isTheGoldenProfile() throws {
    assertMatchesGolden(try Self.pprof(["-raw", try converted()]), named: "report-heap.pprof-raw.txt")
  }
}
