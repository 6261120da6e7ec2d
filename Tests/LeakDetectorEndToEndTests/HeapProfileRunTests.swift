import Foundation
import HeapGraph
import LeakTestSupport
import XCTest

/// `leak-detector run --profile` on a server-like program (`Fixtures/Run/Growing.swift`), read by
/// `go tool pprof`: the exit profile counts the exit snapshot's objects and bytes and names the
/// function and line that allocated them; each interval snapshot has its profile beside it, and
/// `-base` shows what grew between two; sampled tracking gives Go's period and allocated totals.
final class HeapProfileRunTests: RunFixtureTestCase {
  override class var fixtureNames: [String] { ["Growing"] }
  private var program: String { programs + "/Growing" }

  private func pprof(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
    try HeapProfileConvertTests.pprof(arguments, file: file, line: line)
  }

  /// The allocations of a snapshot (closure values and suspension points are none) and their bytes.
  private func allocations(in path: String, ofType type: String? = nil) throws -> (objects: Int, bytes: Int) {
    let snapshot = try HeapSnapshot(jsonBytes: [UInt8](Data(contentsOf: URL(fileURLWithPath: path))))
    let objects = snapshot.objects.filter { !($0.kind == .closureContext && $0.address == nil) && (type == nil || $0.type == type) }
    return (objects.count, objects.reduce(0) { $0 + ($1.size ?? 0) })
  }

  func testExitProfile_countsTheExitSnapshotsObjectsAndBytes_andNamesTheAllocatingLine() throws {
    let directory = try makeTemporaryDirectory(prefix: "run-profile")
    let (profile, snapshot) = (directory + "/heap.pb.gz", directory + "/heap.json")
    let result = try BuiltProgram("leak-detector").run(
      ["run", "--profile", profile, "--snapshot", snapshot, "--snapshot-encoding", "json", "--", program, "grow", "1.0"])
    XCTAssertEqual(result.status, 0, result.standardOutput + result.standardError)
    let all = try allocations(in: snapshot)
    let space = try pprof(["-top", "-unit=B", "-nodefraction=0", "-sample_index=inuse_space", profile])
    XCTAssertTrue(space.contains("Showing nodes accounting for \(all.bytes)B, 100% of \(all.bytes)B total"), "\(all)\n\(space)")
    let objects = try pprof(["-top", "-nodefraction=0", "-sample_index=inuse_objects", profile])
    XCTAssertTrue(objects.contains("of \(all.objects) total"), "\(all)\n\(objects)")
    let responses = try allocations(in: snapshot, ofType: "Growing.Response")
    XCTAssertGreaterThan(responses.objects, 20)
    let focused = try pprof(["-top", "-sample_index=inuse_objects", "-tagfocus=object=Growing.Response", profile])
    XCTAssertTrue(focused.contains("Showing nodes accounting for \(responses.objects), "), "\(responses)\n\(focused)")

    let lines = try pprof(["-top", "-lines", "-unit=B", "-sample_index=inuse_space", profile])
    // Optimized code inlines the initializer: the location's line in handle() is still the call's.
    let site = "Growing.handle(_: Swift.Int, growing: Swift.Bool) -> () \(RunFixturePrograms.sources)/Growing.swift:30"
    let first = try XCTUnwrap(lines.split(separator: "\n").first { $0.contains("Growing.handle(") }, lines)
    XCTAssertTrue(first.contains("\(responses.bytes)B") && first.contains(site), "the responses, with their bodies:\n\(lines)")
    XCTAssertFalse(lines.contains("__allocating_init"), lines)

    let raw = try pprof(["-raw", profile])
    XCTAssertTrue(raw.contains("s=0($s7Growing6handle_7growingySi_SbtF)"), "the mangled name:\n\(raw)")
    XCTAssertTrue(raw.contains("Period: 0"), raw)
    XCTAssertTrue(raw.contains(" \(program) ") && raw.contains("[FN][FL]"), "the program's mapping, symbolized:\n\(raw)")
  }

  func testIntervalSnapshots_haveTheirProfilesBeside_andBaseShowsWhatGrew() throws {
    let directory = try makeTemporaryDirectory(prefix: "run-profile-interval")
    let result = try BuiltProgram("leak-detector").run(
      [
        "run", "--profile", directory + "/exit.pb.gz", "--snapshot-interval", "0.4", "--snapshot-directory", directory, "--", program,
        "grow", "2.0",
      ])
    XCTAssertEqual(result.status, 0, result.standardOutput + result.standardError)
    let names = try FileManager.default.contentsOfDirectory(atPath: directory)
    let snapshots = names.filter { $0.hasSuffix(".heapsnapshot.json") }.sorted { $0.count == $1.count ? $0 < $1 : $0.count < $1.count }
    XCTAssertGreaterThanOrEqual(snapshots.count, 3, "\(names)")
    for name in snapshots {
      let profile = name.replacingOccurrences(of: ".heapsnapshot.json", with: ".pb.gz")
      XCTAssertTrue(names.contains(profile), "\(profile) beside \(name): \(names)")
      XCTAssertTrue(result.standardError.contains("\(directory)/\(name) (heap profile \(directory)/\(profile))"), result.standardError)
    }
    let (first, last) = (snapshots.first!, snapshots.last!)
    let profile = { (name: String) in directory + "/" + name.replacingOccurrences(of: ".heapsnapshot.json", with: ".pb.gz") }
    let grown =
      try allocations(in: directory + "/" + last, ofType: "Growing.Response").objects
      - allocations(in: directory + "/" + first, ofType: "Growing.Response").objects
    XCTAssertGreaterThan(grown, 10)
    let base = try pprof([
      "-top", "-sample_index=inuse_objects", "-tagfocus=object=Growing.Response", "-base", profile(first), profile(last),
    ])
    XCTAssertTrue(base.contains("Showing nodes accounting for \(grown), "), "\(grown) more responses:\n\(base)")
    XCTAssertTrue(
      base.split(separator: "\n").contains {
        $0.hasPrefix("\(String(repeating: " ", count: 10 - "\(grown)".count))\(grown) ") && $0.contains("Growing.handle(")
      }, base)
  }

  func testSampledRun_givesGosPeriod_andAllocatedTotalsAboveTheLiveOnes() throws {
    let directory = try makeTemporaryDirectory(prefix: "run-profile-sampled")
    let profile = directory + "/heap.pb.gz"
    let result = try BuiltProgram("leak-detector").run(
      ["run", "--sample-interval", "64", "--profile", profile, "--", program, "clean", "1.0"])
    XCTAssertEqual(result.status, 0, result.standardOutput + result.standardError)
    let raw = try pprof(["-raw", profile])
    XCTAssertTrue(raw.contains("Period: 64"), raw)
    func total(_ index: String) throws -> Int {
      let top = try pprof(["-top", "-sample_index=\(index)", "-tagfocus=object=Growing.Response", profile])
      let line = try XCTUnwrap(top.split(separator: "\n").first { $0.hasPrefix("Showing nodes accounting for ") }, top)
      return try XCTUnwrap(Int(line.dropFirst("Showing nodes accounting for ".count).prefix { $0.isNumber }), top)
    }
    let (allocated, live) = (try total("alloc_objects"), try total("inuse_objects"))
    XCTAssertGreaterThan(allocated, live, "the clean program frees all but its last three responses")
    XCTAssertGreaterThan(allocated, 20)
  }
}
