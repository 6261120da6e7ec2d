import Foundation
import HeapGraph
import LeakDetector
import LeakTestSupport
import XCTest

final class ProfiledThing {
  var payload = (0, 0, 0)
}

/// Where the profile tests keep their objects, so that optimized builds allocate them on the heap.
let keptProfiledThings = Locked<[ProfiledThing]>([])

@inline(never) func makeProfiledThings(_ count: Int) -> [ProfiledThing] {
  (0..<count).map { _ in ProfiledThing() }
}

/// `AllocationTracker.heapProfile()`: the tracked objects alive now, read from the tracker's
/// table with no capture, by type and stack, with this process's mappings and mangled names;
/// with sampled tracking, Go's period, scaling and allocated totals.
final class AllocationTrackerHeapProfileTests: XCTestCase {
  override func tearDown() {
    AllocationTracker.stop()
    keptProfiledThings.withLock { $0.removeAll() }
    super.tearDown()
  }

  private func decoded(_ profile: HeapProfile) throws -> PprofProfile {
    let pprof = try PprofProfile(decoding: profile.pprofProfile.serializedBytes())
    XCTAssertEqual(pprof, profile.pprofProfile)
    return pprof
  }

  private func samples(of type: String, in pprof: PprofProfile) -> [PprofProfile.Sample] {
    pprof.samples.filter { $0.labels.contains(.init(key: "object", string: type)) }
  }

  func testProfile_ofEveryTrackedObject_byStack_withMappingsAndMangledNames() throws {
    AllocationTracker.start(.init(capturesStacks: true))
    keptProfiledThings.withLock { $0 = makeProfiledThings(300) }
    let live = AllocationTracker.liveObjects().filter { $0.typeName == "LeakDetectorTests.ProfiledThing" }
    XCTAssertEqual(live.count, 300)
    let size = try XCTUnwrap(live.first?.size)

    let profile = AllocationTracker.heapProfile()
    let pprof = try decoded(profile)
    XCTAssertEqual(pprof.period, 0, "every object tracked")
    let things = samples(of: "LeakDetectorTests.ProfiledThing", in: pprof)
    XCTAssertEqual(things.map { $0.values[2] }.reduce(0, +), 300, "inuse_objects")
    XCTAssertEqual(things.map { $0.values[3] }.reduce(0, +), Int64(300 * size), "inuse_space")
    XCTAssertTrue(things.allSatisfy { $0.values[0] == $0.values[2] && $0.values[1] == $0.values[3] }, "alloc_* equal inuse_*")

    let leaf = try XCTUnwrap(pprof.locations.first { $0.id == things[0].locationIDs[0] })
    // The function that holds the code at the address is the location's last line (functions
    // inlined there come before it, in optimized builds); it has a mangled name.
    let function = pprof.functions[Int(try XCTUnwrap(leaf.lines.last).functionID) - 1]
    XCTAssertTrue(function.name.contains("makeProfiledThings"), "the function that allocated: \(function.name)")
    XCTAssertTrue(function.systemName.hasPrefix("$s"), "its mangled symbol: \(function.systemName)")
    XCTAssertTrue(function.filename.hasSuffix("AllocationTrackerHeapProfileTests.swift"), function.filename)
    XCTAssertEqual(Symbolicator.demangle(function.systemName).contains("makeProfiledThings"), true)
    let mapping = try XCTUnwrap(pprof.mappings.first { $0.id == leaf.mappingID })
    XCTAssertTrue((mapping.memoryStart..<mapping.memoryLimit).contains(leaf.address))
    XCTAssertEqual(mapping.filename, try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"), "the test binary")
    XCTAssertEqual(pprof.mappings.first?.filename, mapping.filename, "the executable's mapping first")
    XCTAssertTrue(mapping.hasFunctions)
    XCTAssertTrue(pprof.comments.first?.hasPrefix("live objects of ") ?? false, "\(pprof.comments)")
    XCTAssertGreaterThan(pprof.timeNanos, 1_700_000_000_000_000_000)

    let path = try makeTemporaryDirectory(prefix: "tracker-profile") + "/heap.pb.gz"
    try AllocationTracker.writeHeapProfile(to: path)
    let written = try PprofProfile(decoding: ExternalTool.gunzip([UInt8](Data(contentsOf: URL(fileURLWithPath: path)))))
    XCTAssertEqual(samples(of: "LeakDetectorTests.ProfiledThing", in: written).map { $0.values[2] }.reduce(0, +), 300)
  }

  func testProfile_withoutStacks_putsTheObjectsUnderOneLocation() throws {
    AllocationTracker.start(.init(capturesStacks: false))
    keptProfiledThings.withLock { $0 = makeProfiledThings(10) }
    let pprof = try decoded(AllocationTracker.heapProfile())
    let things = samples(of: "LeakDetectorTests.ProfiledThing", in: pprof)
    XCTAssertEqual(things.count, 1)
    XCTAssertEqual(things[0].values[2], 10)
    let location = try XCTUnwrap(pprof.locations.first { $0.id == things[0].locationIDs.first })
    XCTAssertEqual(pprof.functions[Int(location.lines[0].functionID) - 1].name, "(no stack recorded)")
  }

  func testSampledTracking_givesGosPeriodScalingAndAllocatedTotals() throws {
    let interval = 4096
    AllocationTracker.start(.init(sampleInterval: interval))
    // About 490 of the 50,000 live objects are sampled (40 bytes each, one sample per 4,096
    // bytes on average): the estimate's standard deviation is about 4.5%, so 30% is a tolerance
    // no run of an unbiased sampler misses (with 10,000 live objects, it was 3σ, and missed once).
    keptProfiledThings.withLock { $0 = makeProfiledThings(100_000) }
    keptProfiledThings.withLock { $0.removeLast(50_000) }
    let sampled = AllocationTracker.liveObjects().filter { $0.typeName == "LeakDetectorTests.ProfiledThing" }
    let size = try XCTUnwrap(sampled.first?.size)
    let pprof = try decoded(AllocationTracker.heapProfile())
    XCTAssertEqual(pprof.period, Int64(interval))
    let things = samples(of: "LeakDetectorTests.ProfiledThing", in: pprof)
    let inuse = HeapProfile.scaled(objects: sampled.count, bytes: sampled.count * size, samplingInterval: interval)
    XCTAssertEqual(things.map { $0.values[2] }.reduce(0, +), inuse.objects, accuracy: Int64(things.count), "scaled as Go scales")
    let estimated = Double(things.map { $0.values[2] }.reduce(0, +))
    XCTAssertEqual(estimated, 50_000, accuracy: 15_000, "the live objects, estimated from about \(sampled.count) samples")
    let allocated = Double(things.map { $0.values[0] }.reduce(0, +))
    XCTAssertEqual(allocated, 100_000, accuracy: 25_000, "every allocation, freed ones included")
    XCTAssertGreaterThan(allocated, estimated)
  }
}
