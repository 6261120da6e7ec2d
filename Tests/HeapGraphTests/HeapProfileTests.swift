import HeapGraph
import LeakTestSupport
import XCTest

/// A profile with every field of every message set to something other than its default.
private func everyFieldProfile() -> PprofProfile {
  var profile = PprofProfile()
  profile.sampleTypes = [.init(type: "objects", unit: "count"), .init(type: "space", unit: "bytes")]
  profile.samples = [
    .init(
      locationIDs: [2, 1], values: [3, -40],
      labels: [.init(key: "object", string: "App.Feed"), .init(key: "bytes", number: 48, unit: "bytes")])
  ]
  profile.mappings = [
    .init(
      id: 1, memoryStart: 0x1000, memoryLimit: 0x9000, fileOffset: 0x200, filename: "/app/App", buildID: "b521f25f",
      hasFunctions: true, hasFilenames: true, hasLineNumbers: true, hasInlineFrames: true)
  ]
  profile.locations = [
    .init(id: 1, mappingID: 1, address: 0x1234, lines: [.init(functionID: 1, line: 12, column: 5)], isFolded: true),
    .init(id: 2, lines: [.init(functionID: 2, line: 3), .init(functionID: 1, line: 14)]),
  ]
  profile.functions = [
    .init(id: 1, name: "App.load() -> ()", systemName: "$s3App4loadyyF", filename: "Load.swift", startLine: 10),
    .init(id: 2, name: "App.Feed.init()"),
  ]
  profile.dropFrames = "swift_allocObject"
  profile.keepFrames = "App\\..*"
  profile.timeNanos = 1_795_341_600_000_000_000
  profile.durationNanos = 5_000_000_000
  profile.periodType = .init(type: "space", unit: "bytes")
  profile.period = 524_288
  profile.comments = ["heap snapshot of App", "second comment"]
  profile.defaultSampleType = "space"
  profile.docURL = "https://example.com/heap"
  return profile
}

/// Heap profiles in pprof's format: the protobuf wire format, every field of the profile read
/// back from the written bytes, the snapshot's objects by type and stack as Go lays out a heap
/// profile, sampling scaled as Go scales it, mappings and mangled names when known.
final class HeapProfileTests: XCTestCase {
  // MARK: The wire format

  func testProtobufWriter_writesVarintsStringsAndPackedFields_andLeavesDefaultsOut() {
    var writer = ProtobufWriter()
    writer.uint64(1, 150)
    XCTAssertEqual(writer.bytes, [0x08, 0x96, 0x01])
    writer = ProtobufWriter()
    writer.uint64(1, 0)
    writer.int64(2, 0)
    writer.bool(3, false)
    writer.packed(4, [UInt64]())
    XCTAssertEqual(writer.bytes, [], "proto3 leaves fields at their default out")
    writer.int64(2, -1)
    XCTAssertEqual(writer.bytes, [0x10] + [UInt8](repeating: 0xFF, count: 9) + [0x01], "a negative int64 takes ten bytes")
    writer = ProtobufWriter()
    writer.string(6, "")
    writer.string(6, "pprof")
    XCTAssertEqual(writer.bytes, [0x32, 0] + [0x32, 5] + Array("pprof".utf8), "an empty string of a repeated field is kept")
    writer = ProtobufWriter()
    writer.packed(1, [3, 270, 86942] as [UInt64])
    XCTAssertEqual(writer.bytes, [0x0A, 0x06, 0x03, 0x8E, 0x02, 0x9E, 0xA7, 0x05])
    writer = ProtobufWriter()
    writer.message(11) { $0.uint64(1, 1) }
    XCTAssertEqual(writer.bytes, [0x5A, 0x02, 0x08, 0x01])
  }

  func testEveryField_readsBackFromTheWrittenBytes() throws {
    let profile = everyFieldProfile()
    let bytes = profile.serializedBytes()
    XCTAssertEqual(try PprofProfile(decoding: bytes), profile)
    let message = try ProtobufMessage(bytes)
    XCTAssertEqual(message.fieldNumbers, message.fieldNumbers.sorted(), "fields in the order of their numbers")
    let table = message.strings(PprofField.Profile.stringTable)
    XCTAssertEqual(table.first, "", "the string table starts with the empty string")
    XCTAssertEqual(Set(table).count, table.count, "each string once")
    XCTAssertEqual(profile.serializedBytes(), bytes, "the same profile, the same bytes")

    XCTAssertEqual(try PprofProfile(decoding: PprofProfile().serializedBytes()), PprofProfile())
    XCTAssertEqual(PprofProfile().serializedBytes(), [0x32, 0], "an empty profile is its string table's empty string")
  }

  /// The bytes themselves, as a hex dump, 32 bytes a line: a change of the encoder that changes
  /// no field's value still changes none of them.
  private func hexLines(_ bytes: [UInt8]) -> String {
    stride(from: 0, to: bytes.count, by: 32).map { start in
      bytes[start..<min(start + 32, bytes.count)].map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined(separator: " ")
    }.joined(separator: "\n") + "\n"
  }

  func testSerializedBytes_ofEveryFieldAndOfASnapshot_areTheGoldenBytes() {
    assertMatchesGolden(hexLines(everyFieldProfile().serializedBytes()), named: "pprof-every-field.hex.txt")
    assertMatchesGolden(hexLines(HeapProfile(snapshot: snapshot()).pprofProfile.serializedBytes()), named: "pprof-snapshot.hex.txt")
  }

  // MARK: From a snapshot

  /// Two feeds and a cache allocated at two stacks, a state with no stack, a closure context of
  /// unknown size, a closure value and a place a task waits at (no allocations).
  private func snapshot(reversed: Bool = false) -> HeapSnapshot {
    var heap = HeapSnapshot.Builder(metadata: .init(createdAt: "2026-11-22T10:00:00Z", process: "App (pid 4242)"))
    heap.addStack(
      id: 1,
      frames: [
        StackFrame(pc: 0x1010, symbol: "App.Feed.__allocating_init() -> App.Feed", file: "/src/App/Feed.swift", line: 3),
        StackFrame(pc: 0x2020, symbol: "App.make() -> App.Feed", file: "/src/App/Screen.swift", line: 12, column: 9),
        StackFrame(pc: 0x3030, symbol: "main", file: "/src/App/main.swift", line: 2),
      ])
    heap.addStack(
      id: 2,
      frames: [
        StackFrame(pc: 0x2040, symbol: "App.cache() -> App.Cache", file: "/src/App/Screen.swift", line: 30),
        StackFrame(pc: 0x3040, symbol: "main", file: "/src/App/main.swift", line: 3),
      ])
    heap.addStack(
      id: 3, frames: [StackFrame(pc: 0x2100, symbol: "closure #1 in App.make() -> App.Feed", file: "/src/App/Screen.swift", line: 13)])
    var objects: [(Int64, String, UInt64?, Int?, Int64?, ObjectKind?)] = [
      (1, "App.Feed", 0x7000, 48, 1, .classInstance),
      (2, "App.Feed", 0x7100, 48, 1, .classInstance),
      (3, "App.Cache", 0x7200, 64, 2, .classInstance),
      (4, "App.State", 0x7300, 32, nil, .classInstance),
      (5, "closure #1 in App.make()", 0x7400, nil, 3, .closureContext),
      (6, "closure #2 in App.make()", nil, nil, 3, .closureContext),
      (7, "await in closure #1 in App.make()", nil, nil, 3, .closureContext),
    ]
    if reversed { objects.reverse() }
    for (id, type, address, size, stack, kind) in objects {
      heap.addObject(id: id, type: type, address: address, size: size, stack: stack, kind: kind)
    }
    return heap.snapshot
  }

  func testSnapshotProfile_hasGosHeapLayout_objectsByTypeAndStack() throws {
    let profile = HeapProfile(snapshot: snapshot())
    XCTAssertEqual(profile.objectCount, 5, "closure values and suspension points are no allocations")
    XCTAssertEqual(profile.byteCount, 48 + 48 + 64 + 32)
    let decoded = try PprofProfile(decoding: profile.pprofProfile.serializedBytes())
    XCTAssertEqual(decoded, profile.pprofProfile)

    XCTAssertEqual(
      decoded.sampleTypes.map { "\($0.type)/\($0.unit)" },
      ["alloc_objects/count", "alloc_space/bytes", "inuse_objects/count", "inuse_space/bytes"])
    XCTAssertEqual(decoded.defaultSampleType, "inuse_space")
    XCTAssertEqual(decoded.periodType, .init(type: "space", unit: "bytes"))
    XCTAssertEqual(decoded.period, 0, "every allocation recorded")
    XCTAssertEqual(decoded.timeNanos, 1_795_341_600_000_000_000, "the snapshot's createdAt")
    XCTAssertEqual(decoded.comments, ["heap snapshot of App (pid 4242)"])

    func function(_ id: UInt64) -> PprofProfile.Function { decoded.functions[Int(id) - 1] }
    func location(_ id: UInt64) -> PprofProfile.Location { decoded.locations[Int(id) - 1] }
    func stack(_ sample: PprofProfile.Sample) -> [String] {
      sample.locationIDs.map { id in location(id).lines.map { "\(function($0.functionID).name):\($0.line)" }.joined(separator: ",") }
    }
    func label(_ sample: PprofProfile.Sample, _ key: String) -> PprofProfile.Label? { sample.labels.first { $0.key == key } }

    XCTAssertEqual(
      decoded.samples.map { label($0, "object")?.string }, ["App.Feed", "App.Cache", "App.State", "closure #1 in App.make()"],
      "the largest first")
    let feeds = decoded.samples[0]
    XCTAssertEqual(feeds.values, [2, 96, 2, 96], "alloc_* equal inuse_*")
    XCTAssertEqual(
      stack(feeds), ["App.make() -> App.Feed:12", "main:2"], "from the function that allocated, past its allocating initializer")
    XCTAssertEqual(label(feeds, "bytes"), .init(key: "bytes", number: 48), "the average size, as Go labels it")
    XCTAssertEqual(location(feeds.locationIDs[0]).address, 0x2020)
    XCTAssertEqual(
      location(feeds.locationIDs[0]).lines, [.init(functionID: location(feeds.locationIDs[0]).lines[0].functionID, line: 12, column: 9)])
    XCTAssertEqual(function(location(feeds.locationIDs[0]).lines[0].functionID).filename, "/src/App/Screen.swift")
    XCTAssertEqual(function(location(feeds.locationIDs[0]).lines[0].functionID).systemName, "", "no mangled name in a snapshot")

    XCTAssertEqual(decoded.samples[1].values, [1, 64, 1, 64])
    XCTAssertEqual(stack(decoded.samples[1]), ["App.cache() -> App.Cache:30", "main:3"])
    XCTAssertEqual(stack(decoded.samples[2]), ["(no stack recorded):0"])
    XCTAssertEqual(location(decoded.samples[2].locationIDs[0]).address, 0)
    XCTAssertEqual(decoded.samples[3].values, [1, 0, 1, 0], "a closure context of unknown size: one object, no bytes")
    XCTAssertNil(label(decoded.samples[3], "bytes"))

    let mains = decoded.functions.filter { $0.name == "main" }
    XCTAssertEqual(mains.count, 1, "one function per name and file, however many locations")
    XCTAssertEqual(decoded.locations.count, 6)
    XCTAssertEqual(decoded.locations.map(\.id), Array(1...6))
    XCTAssertEqual(decoded.mappings.count, 1, "no image known: one mapping without a file holds the locations")
    XCTAssertEqual(decoded.mappings[0].filename, "")
    XCTAssertTrue(decoded.mappings[0].hasFunctions, "so pprof does not look the addresses up again")
    XCTAssertFalse(decoded.mappings[0].hasFilenames, "(no stack recorded) has no file")
    XCTAssertTrue(decoded.locations.allSatisfy { $0.mappingID == 1 })
  }

  func testSnapshotProfile_doesNotDependOnTheOrderOfTheSnapshotsRecords() {
    XCTAssertEqual(
      HeapProfile(snapshot: snapshot()).pprofProfile.serializedBytes(),
      HeapProfile(snapshot: snapshot(reversed: true)).pprofProfile.serializedBytes())
  }

  func testAllocatingInitializers_areLeftOut_unlessNothingElseIsLeft() {
    let initializer = StackFrame(symbol: "App.Feed.__allocating_init() -> App.Feed")
    let generic = StackFrame(symbol: "App.Box<A>.__allocating_init(A) -> App.Box<A>")
    let caller = StackFrame(symbol: "App.make() -> App.Feed")
    XCTAssertEqual(HeapProfile.fromAllocatingFunction([initializer, generic, caller, initializer]), [caller, initializer])
    XCTAssertEqual(HeapProfile.fromAllocatingFunction([initializer, generic]), [generic])
    XCTAssertEqual(HeapProfile.fromAllocatingFunction([]), [])
  }

  // MARK: Sampling, mappings, mangled names

  func testSampledValues_areScaledAsGoScalesThem() {
    XCTAssertEqual(HeapProfile.scaled(objects: 10, bytes: 5120, samplingInterval: 524_288).objects, 10245)
    XCTAssertEqual(HeapProfile.scaled(objects: 10, bytes: 5120, samplingInterval: 524_288).bytes, 5_245_440)
    XCTAssertEqual(HeapProfile.scaled(objects: 3, bytes: 96, samplingInterval: 512 * 1024).objects, 49153)
    XCTAssertEqual(HeapProfile.scaled(objects: 1, bytes: 1 << 20, samplingInterval: 512 * 1024).bytes, 1_212_696)
    for interval in [0, 1] {
      XCTAssertEqual(HeapProfile.scaled(objects: 10, bytes: 5120, samplingInterval: interval).objects, 10, "every allocation recorded")
      XCTAssertEqual(HeapProfile.scaled(objects: 10, bytes: 5120, samplingInterval: interval).bytes, 5120)
    }
    XCTAssertEqual(HeapProfile.scaled(objects: 4, bytes: 0, samplingInterval: 512).objects, 4, "no size known: kept as recorded")

    var profile = HeapProfile(snapshot: snapshot())
    profile.samplingInterval = 524_288
    let pprof = profile.pprofProfile
    XCTAssertEqual(pprof.period, 524_288)
    let scaled = HeapProfile.scaled(objects: 2, bytes: 96, samplingInterval: 524_288)
    XCTAssertEqual(pprof.samples[0].values, [scaled.objects, scaled.bytes, scaled.objects, scaled.bytes])
  }

  func testAllocationTotals_giveTheAllocValues_scaledApartFromTheLiveOnes() {
    let site = HeapProfile.Site(typeName: "App.Request", frames: nil, objects: 2, bytes: 128, allocatedObjects: 10, allocatedBytes: 640)
    var profile = HeapProfile(sites: [
      site, .init(typeName: "App.Gone", frames: nil, objects: 0, bytes: 0, allocatedObjects: 4, allocatedBytes: 4096),
    ])
    XCTAssertEqual(profile.pprofProfile.samples.map(\.values), [[10, 640, 2, 128], [4, 4096, 0, 0]], "live bytes first, then allocated")
    XCTAssertEqual(profile.pprofProfile.samples[0].labels[1], .init(key: "bytes", number: 64))
    profile.samplingInterval = 512
    let alloc = HeapProfile.scaled(objects: 10, bytes: 640, samplingInterval: 512)
    let inuse = HeapProfile.scaled(objects: 2, bytes: 128, samplingInterval: 512)
    XCTAssertEqual(profile.pprofProfile.samples[0].values, [alloc.objects, alloc.bytes, inuse.objects, inuse.bytes])
  }

  func testImagesAndMangledNames_giveMappingsAndSystemNames() throws {
    var profile = HeapProfile(snapshot: snapshot())
    profile.images = [
      .init(start: 0x2000, limit: 0x4000, fileOffset: 0x1000, path: "/app/App", buildID: "b521f25f"),
      .init(start: 0x1000, limit: 0x2000, fileOffset: 0, path: "/usr/lib/libswiftCore.so"),
      .init(start: 0x9000, limit: 0xA000, fileOffset: 0, path: "/usr/lib/libunused.so"),
    ]
    profile.mangledNames = [0x2020: "$s3App4makeAA4FeedCyF"]
    let decoded = try PprofProfile(decoding: profile.pprofProfile.serializedBytes())
    XCTAssertEqual(decoded.mappings.map(\.filename), ["/app/App"], "the images a location falls in, the executable first")
    XCTAssertEqual(decoded.mappings[0].memoryStart, 0x2000)
    XCTAssertEqual(decoded.mappings[0].memoryLimit, 0x4000)
    XCTAssertEqual(decoded.mappings[0].fileOffset, 0x1000)
    XCTAssertEqual(decoded.mappings[0].buildID, "b521f25f")
    XCTAssertTrue(decoded.mappings[0].hasFunctions && decoded.mappings[0].hasFilenames && decoded.mappings[0].hasLineNumbers)
    for location in decoded.locations {
      XCTAssertEqual(location.mappingID, (0x2000..<0x4000).contains(location.address) ? 1 : 0, "\(location)")
    }
    let make = try XCTUnwrap(decoded.functions.first { $0.name == "App.make() -> App.Feed" })

    // An address no symbol was found for: a location without lines, in a mapping still said to
    // be symbolized, so that pprof does not look the binary's (Swift) symbols up again.
    profile.sites.append(.init(typeName: "App.Stripped", frames: [StackFrame(pc: 0x2300)], objects: 1, bytes: 16))
    let stripped = try PprofProfile(decoding: profile.pprofProfile.serializedBytes())
    let unknown = try XCTUnwrap(stripped.locations.first { $0.address == 0x2300 })
    XCTAssertEqual(unknown.lines, [])
    XCTAssertEqual(unknown.mappingID, 1)
    XCTAssertTrue(stripped.mappings[0].hasFunctions)
    XCTAssertFalse(stripped.mappings[0].hasFilenames || stripped.mappings[0].hasLineNumbers)
    XCTAssertEqual(make.systemName, "$s3App4makeAA4FeedCyF")
    XCTAssertEqual(decoded.functions.first { $0.name == "main" }?.systemName, "")
  }

  func testExecutableMappings_ofProcMaps_theExecutableFirst() {
    let maps = """
      55d0c1000000-55d0c1001000 r--p 00000000 08:01 1234                       /app/My Server
      55d0c1001000-55d0c1009000 r-xp 00001000 08:01 1234                       /app/My Server
      7f3a10000000-7f3a10200000 r-xp 00040000 08:01 99                         /usr/lib/swift/linux/libswiftCore.so
      7f3a20000000-7f3a20001000 rw-p 00000000 00:00 0                          [heap]
      7ffd10000000-7ffd10002000 r-xp 00000000 00:00 0                          [vdso]
      7f3a00000000-7f3a00100000 r-xp 00000000 08:01 98                         /usr/lib/libc.so.6
      not a mapping
      """
    let images = HeapProfile.Image.executableMappings(procMaps: maps, executable: "/app/My Server")
    XCTAssertEqual(
      images,
      [
        .init(start: 0x55d0_c100_1000, limit: 0x55d0_c100_9000, fileOffset: 0x1000, path: "/app/My Server"),
        .init(start: 0x7f3a_0000_0000, limit: 0x7f3a_0010_0000, fileOffset: 0, path: "/usr/lib/libc.so.6"),
        .init(start: 0x7f3a_1000_0000, limit: 0x7f3a_1020_0000, fileOffset: 0x40000, path: "/usr/lib/swift/linux/libswiftCore.so"),
      ])
  }

  func testCreatedAt_readsAsNanosecondsSince1970() {
    XCTAssertEqual(HeapProfile.unixNanoseconds(iso8601: "2026-11-22T10:00:00Z"), 1_795_341_600_000_000_000)
    XCTAssertEqual(HeapProfile.unixNanoseconds(iso8601: "2026-11-22T11:30:00+01:30"), 1_795_341_600_000_000_000)
    XCTAssertEqual(HeapProfile.unixNanoseconds(iso8601: "2000-02-29T12:00:00.25Z"), 951_825_600_250_000_000)
    XCTAssertEqual(HeapProfile.unixNanoseconds(iso8601: "1969-12-31T23:59:59Z"), -1_000_000_000)
    for text in ["", "2026-11-22", "2026-13-01T00:00:00Z", "2026-11-22T10:00:00", "2026-11-22T10:00:00.Z", "yesterday"] {
      XCTAssertNil(HeapProfile.unixNanoseconds(iso8601: text), text)
    }
  }
}
