import HeapGraph
import XCTest

/// Which memory grew, in one line: Swift objects, memory outside them, or free memory malloc
/// keeps in its arenas.
final class MemoryGrowthTests: XCTestCase {
  private let mib = 1 << 20

  private func memory(rss: Int, swift: Int, inUse: Int, free: Int) -> ProcessMemory {
    var memory = ProcessMemory()
    memory.residentBytes = rss * mib
    memory.swiftObjectBytes = swift * mib
    memory.mallocInUse = inUse * mib
    memory.mallocFreeInArenas = free * mib
    return memory
  }

  func testCauses() throws {
    let start = memory(rss: 100, swift: 10, inUse: 40, free: 5)
    func cause(_ end: ProcessMemory) -> MemoryGrowth.Cause? { MemoryGrowth([start, end])?.cause }
    XCTAssertEqual(cause(memory(rss: 102, swift: 11, inUse: 41, free: 5)), .steady)
    XCTAssertEqual(cause(memory(rss: 300, swift: 180, inUse: 220, free: 5)), .swiftObjects)
    XCTAssertEqual(cause(memory(rss: 300, swift: 12, inUse: 230, free: 10)), .outsideSwiftObjects)
    XCTAssertEqual(cause(memory(rss: 300, swift: 10, inUse: 45, free: 200)), .freeInArenas)
    XCTAssertEqual(cause(memory(rss: 200, swift: 10, inUse: 82, free: 50)), .freeInArenas, "free 45 MiB, in use outside Swift 42 MiB")
    XCTAssertEqual(cause(memory(rss: 200, swift: 10, inUse: 100, free: 30)), .outsideSwiftObjects)
    XCTAssertEqual(cause(memory(rss: 300, swift: 10, inUse: 40, free: 5)), .other)
    XCTAssertNil(MemoryGrowth([start, ProcessMemory()]), "no resident memory in the last snapshot")
    let summary = try XCTUnwrap(MemoryGrowth([start, memory(rss: 300, swift: 10, inUse: 45, free: 200)])).summary
    XCTAssertEqual(
      summary,
      "RSS +200 MiB, Swift objects +0 bytes, malloc in use +5 MiB, malloc free in arenas +195 MiB: fragmentation, not a Swift leak: "
        + "freed memory stays in malloc's arenas (try MALLOC_ARENA_MAX=2, malloc_trim, or jemalloc)")
  }

  func testPerStep_groupsLargeAveragesAndKeepsTenthsOfSmallOnes() {
    XCTAssertEqual(
      [1, 2.5, 23.46, 4516.3, 144_522.7, -3].map(HeapGrowth.perStep), ["+1", "+2.5", "+23.5", "+4,516", "+144,523", "-3"])
  }
}
