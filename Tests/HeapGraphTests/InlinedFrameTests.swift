import HeapGraph
import XCTest

/// Frames of functions that optimized code inlined (``StackFrame/inlined``): which frame is an
/// allocation site, how a site in inlined code reads, what the package's own line is, and how
/// snapshots and pprof keep them. The stacks are those `leak-detector run` records for
/// `Fixtures/Run/Inlined.swift` built `-O -g`.
final class InlinedFrameTests: XCTestCase {
  /// `House()` on line 24 of `plant()`, its initializer inlined there: a `Tag` allocated in it
  /// (line 16), through Tag's allocating initializer, inlined too. One return address.
  private let tagStack = [
    StackFrame(pc: 0x1400, symbol: "main.Tag.__allocating_init() -> main.Tag", file: "/src/Inlined.swift", line: 15, inlined: true),
    StackFrame(pc: 0x1400, symbol: "main.House.init() -> main.House", file: "/src/Inlined.swift", line: 16, column: 49, inlined: true),
    StackFrame(
      pc: 0x1400, symbol: "main.House.__allocating_init() -> main.House", file: "/src/Inlined.swift", line: 16, inlined: true),
    StackFrame(pc: 0x1400, symbol: "main.plant() -> ()", file: "/src/Inlined.swift", line: 24, column: 25),
    StackFrame(pc: 0x2000, symbol: "main", file: "/src/Inlined.swift", line: 27),
  ]

  /// `Owner("o")` on line 22: Owner's allocating initializer inlined, with its declaration line.
  private let ownerStack = [
    StackFrame(
      pc: 0x1300, symbol: "main.Owner.__allocating_init(Swift.String) -> main.Owner", file: "/src/Inlined.swift", line: 8,
      inlined: true),
    StackFrame(pc: 0x1300, symbol: "main.plant() -> ()", file: "/src/Inlined.swift", line: 22, column: 30),
  ]

  // MARK: - Sites

  func testAllocationSite_runtimeHookWithSourceLines_isPassedOverForItsCaller() throws {
    // An executor the runtime makes inside `swift_task_create`, whose hook has lines of its own.
    let stack = [
      StackFrame(pc: 0x3000, symbol: "swift::TaskExecutor::make()"),
      StackFrame(pc: 0x3100, symbol: "swift_task_create", file: "/tool/AllocationTracking.c", line: 515),
      StackFrame(pc: 0x3200, symbol: "main.serve() async -> ()", file: "/src/Server.swift", line: 9),
    ]
    XCTAssertEqual(try XCTUnwrap(stack.allocationSite).sourceLocation, "Server.swift:9")
  }

  func testAllocationSite_inlinedAllocatingInitializer_isTheLineThatCalledIt() throws {
    let site = try XCTUnwrap(ownerStack.allocationSite)
    XCTAssertEqual(site.symbol, "main.plant() -> ()")
    XCTAssertEqual(site.line, 22)
    XCTAssertNil(site.inlinedIn, "plant() holds its own code")
    XCTAssertEqual(site.description, "main.plant() -> () (Inlined.swift:22)")
  }

  func testAllocationSite_inInlinedInitializer_saysTheFunctionThatHoldsTheCode() throws {
    let site = try XCTUnwrap(tagStack.allocationSite)
    XCTAssertEqual(site.symbol, "main.House.init() -> main.House")
    XCTAssertEqual(site.line, 16)
    XCTAssertEqual(site.inlinedIn?.symbol, "main.plant() -> ()", "past the inlined allocating initializer")
    XCTAssertEqual(site.inlinedIn?.line, 24)
    XCTAssertEqual(
      site.description, "main.House.init() -> main.House (Inlined.swift:16), inlined in main.plant() -> () (Inlined.swift:24)")
    let names = NameStyle.readable(homeModule: "main")
    XCTAssertEqual(names.frame(site), "House.init() (Inlined.swift:16), inlined in plant() (Inlined.swift:24)")
    let spans: [ReportText.Span] = .frame(site, names: names)
    XCTAssertEqual(
      spans, ["House.init() (", .location("Inlined.swift:16"), ")", ", inlined in ", "plant() (", .location("Inlined.swift:24"), ")"])
  }

  /// The same code unoptimized: a frame per call, nothing inlined, the same site and line.
  func testAllocationSite_sameCodeNotInlined_isTheSameLineWithoutInlinedIn() throws {
    let called = tagStack.map { frame in
      var frame = frame
      frame.inlined = false
      return frame
    }
    let site = try XCTUnwrap(called.allocationSite)
    XCTAssertEqual(site.symbol, "main.House.init() -> main.House")
    XCTAssertEqual(site.line, 16)
    XCTAssertNil(site.inlinedIn)
  }

  func testOwnCode_inlinedFrames_firstOwnFrameIsTheInnermostWrittenOne() throws {
    let ownCode = OwnCode(packageDirectory: "/src")
    let index = try XCTUnwrap(ownCode.firstOwnFrame(in: tagStack))
    XCTAssertEqual(tagStack[index].symbol, "main.House.init() -> main.House", "the allocating initializer is no written code")
    XCTAssertEqual(tagStack[index].line, 16)
  }

  // MARK: - Encodings

  private func snapshotWithInlinedFrames() -> HeapSnapshot {
    var builder = HeapSnapshot.Builder(metadata: .init(tool: "t"))
    builder.addStack(id: 1, frames: tagStack)
    builder.addStack(id: 2, frames: ownerStack)
    builder.addObject(id: 1, type: "main.Tag", stack: 1)
    builder.addObject(id: 2, type: "main.Owner", stack: 2)
    return builder.snapshot
  }

  func testInlinedFrames_roundTripInBothEncodings_binaryAsVersion6() throws {
    let snapshot = snapshotWithInlinedFrames()
    let bytes = snapshot.binaryBytes()
    XCTAssertEqual(bytes[4], 6, "inlined frames need version 6")
    XCTAssertEqual(try HeapSnapshot(binaryBytes: bytes), snapshot)
    for length in stride(from: 0, to: bytes.count, by: 7) {
      XCTAssertThrowsError(try HeapSnapshot(binaryBytes: Array(bytes[..<length])), "truncated to \(length) bytes")
    }
    let json = snapshot.jsonBytes()
    XCTAssertEqual(try HeapSnapshot(jsonBytes: json), snapshot)
    XCTAssertTrue(String(decoding: json, as: UTF8.self).contains("\"inlined\": true"))
  }

  /// A snapshot without inlined frames is written as before: readers of version 4 read it, and
  /// its JSON has no `inlined` field.
  func testFramesWithoutInlining_keepTheirEncodings() {
    var builder = HeapSnapshot.Builder(metadata: .init(tool: "t"))
    builder.addStack(id: 1, frames: [StackFrame(pc: 0x1300, symbol: "main.plant() -> ()", file: "/src/Inlined.swift", line: 22)])
    builder.addObject(id: 1, type: "main.Owner", stack: 1)
    XCTAssertEqual(builder.snapshot.binaryBytes()[4], 4)
    XCTAssertFalse(String(decoding: builder.snapshot.jsonBytes(), as: UTF8.self).contains("inlined"))
  }

  func testJSONReading_inlinedNotABoolean_isAnError() {
    let text = """
      {"format": "swift-heap-snapshot", "version": 1, "objects": [], "references": [], "roots": [],
       "stacks": [{"id": 1, "frames": [{"pc": "0x10", "inlined": 1}]}]}
      """
    XCTAssertThrowsError(try HeapSnapshot(jsonBytes: Array(text.utf8)))
  }

  /// pprof models inlining as a location with several lines, the caller last.
  func testPprof_inlinedFrames_areOneLocationWithALinePerFunction() throws {
    let profile = HeapProfile(sites: [.init(typeName: "main.Tag", frames: tagStack, objects: 1, bytes: 32)])
    let decoded = try PprofProfile(decoding: profile.pprofProfile.serializedBytes())
    let first = decoded.locations[Int(decoded.samples[0].locationIDs[0]) - 1]
    XCTAssertEqual(first.address, 0x1400)
    XCTAssertEqual(
      first.lines.map { "\(decoded.functions[Int($0.functionID) - 1].name):\($0.line)" },
      ["main.House.init() -> main.House:16", "main.House.__allocating_init() -> main.House:16", "main.plant() -> ():24"],
      "from the function that allocated, past Tag's allocating initializer")
    XCTAssertEqual(decoded.samples[0].locationIDs.count, 2, "two addresses")
  }
}
