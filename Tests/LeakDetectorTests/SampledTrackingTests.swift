import Foundation
import LeakDetector
import XCTest

final class SampledThing {
  var payload = (0, 0, 0, 0)  // 48 bytes with the header
}

final class SmallSampledThing {
  var payload = (0, 0)  // 32 bytes with the header
}

/// Where the sampled test keeps its objects, so that optimized builds allocate them on the heap.
let keptSampledThings = Locked<[SampledThing]>([])

@inline(never) func makeSampledThings(_ count: Int) -> [SampledThing] {
  (0..<count).map { _ in SampledThing() }
}

/// Sampled tracking: about one allocation per `sampleInterval` bytes is tracked, with its stack,
/// as a Poisson process over the bytes allocated; scaled back, the samples estimate the heap.
final class SampledTrackingTests: XCTestCase {
  override func tearDown() {
    AllocationTracker.stop()
    keptSampledThings.withLock { $0.removeAll() }
    super.tearDown()
  }

  func testSampling_tracksAboutOneAllocationPerInterval_withStacks_andEstimatesTheHeap() throws {
    let interval = 4096
    let count = 40_000
    AllocationTracker.start(.init(sampleInterval: interval))
    XCTAssertEqual(AllocationTracker.sampleInterval, interval)
    keptSampledThings.withLock { $0 = makeSampledThings(count) }
    let sampled = AllocationTracker.liveObjects().filter { $0.typeName.hasSuffix("SampledThing") }
    let size = try XCTUnwrap(sampled.first?.size)
    // count * size bytes at one sample per `interval` bytes: a Poisson count, within 5 standard deviations.
    let expected = Double(count * size) / Double(interval)
    XCTAssertEqual(Double(sampled.count), expected, accuracy: 5 * expected.squareRoot(), "sampled \(sampled.count) of \(count)")
    XCTAssertTrue(sampled.allSatisfy { !$0.allocationStack.isEmpty }, "every sampled object has its stack")
    XCTAssertTrue(sampled.contains { $0.allocationStack.contains { $0.symbol?.contains("makeSampledThings") ?? false } })
    // Go's scaling: each sample stands for 1 / (1 - e^(-size/interval)) objects.
    let estimate = Double(sampled.count) / (1 - exp(-Double(size) / Double(interval)))
    XCTAssertEqual(estimate, Double(count), accuracy: 0.25 * Double(count), "estimated \(Int(estimate)) objects")

    let totals = Dictionary(grouping: sampled, by: \.stackID).compactMapValues { objects in
      AllocationTracker.sampledAllocations(stackID: objects[0].stackID).map { ($0, objects.count) }
    }
    XCTAssertEqual(totals.values.map(\.0.count).reduce(0, +), sampled.count, "every live sample is counted")
    keptSampledThings.withLock { $0.removeAll() }
    XCTAssertEqual(AllocationTracker.liveObjects().filter { $0.typeName.hasSuffix("SampledThing") }.count, 0, "freed samples are forgotten")
    let stack = try XCTUnwrap(sampled.first?.stackID)
    XCTAssertEqual(AllocationTracker.sampledAllocations(stackID: stack)?.count, totals[stack]?.0.count, "allocated totals keep freed ones")
  }

  func testStop_endsSampling_andTheNextStartTracksEverything() {
    AllocationTracker.start(.init(sampleInterval: 1 << 20))
    AllocationTracker.stop()
    XCTAssertEqual(AllocationTracker.sampleInterval, 0)
    AllocationTracker.start()
    keptSampledThings.withLock { $0 = makeSampledThings(100) }
    XCTAssertEqual(AllocationTracker.liveObjects().filter { $0.typeName.hasSuffix("SampledThing") }.count, 100)
  }

  func testSampledObjects_lieAtMultiplesOf64_andAnObjectTrackedExplicitly_isForgottenWhereverItLies() throws {
    AllocationTracker.start(.init(sampleInterval: 512))
    keptSampledThings.withLock { $0 = makeSampledThings(2_000) }
    let sampled = AllocationTracker.liveObjects().filter { $0.typeName.hasSuffix("SampledThing") }
    XCTAssertFalse(sampled.isEmpty)
    // The mark a deallocation reads: an unsampled object elsewhere is never looked up.
    XCTAssertTrue(sampled.allSatisfy { $0.address % 64 == 0 }, "sampled objects at multiples of 64")
    keptSampledThings.withLock { $0.removeAll() }
    XCTAssertEqual(AllocationTracker.liveObjects().filter { $0.typeName.hasSuffix("SampledThing") }.count, 0)

    // An object tracked explicitly may lie anywhere: from then on every deallocation looks.
    func address(of object: AnyObject) -> UInt { UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque()) }
    var candidates = (0..<16).map { _ in SmallSampledThing() }  // 48-byte blocks: three in four off a multiple of 64
    guard let index = candidates.firstIndex(where: { address(of: $0) % 64 != 0 }) else {
      throw XCTSkip("this allocator put 16 objects in a row at multiples of 64")
    }
    let tracked = address(of: candidates[index])
    AllocationTracker.track(candidates[index])
    XCTAssertTrue(AllocationTracker.liveObjects().contains { $0.address == tracked })
    candidates.removeAll()
    XCTAssertFalse(AllocationTracker.liveObjects().contains { $0.address == tracked }, "freed, and forgotten")
  }
}
