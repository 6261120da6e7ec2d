import HeapGraph
import LeakDetector
import XCTest

/// Reading the process's memory: the parsers on fixed texts and values, and a live capture that
/// records it.
final class ProcessMemoryReadingTests: XCTestCase {
  private let status = """
    Name:\tProcessMemoryRe
    Umask:\t0022
    State:\tR (running)
    Pid:\t4242
    VmPeak:\t  912340 kB
    VmSize:\t  912336 kB
    VmLck:\t       0 kB
    VmHWM:\t  421888 kB
    VmRSS:\t  421876 kB
    RssAnon:\t  389120 kB
    RssFile:\t   32756 kB
    RssShmem:\t       0 kB
    VmData:\t  401232 kB
    Threads:\t3
    voluntary_ctxt_switches:\t12

    """

  func testKernelView_readsRSSAndItsPartsAndTheAddressSpace() {
    var memory = ProcessMemory()
    memory.recordKernelView(procStatus: status)
    XCTAssertEqual(
      memory,
      ProcessMemory(
        residentBytes: 421_876 * 1024, anonymousBytes: 389_120 * 1024, fileBackedBytes: 32_756 * 1024, virtualBytes: 912_336 * 1024))
  }

  /// An older kernel has no `RssAnon` or `RssFile`; a line that is not `number kB` is not read.
  func testKernelView_leavesMissingAndMalformedFieldsUnknown() {
    var memory = ProcessMemory()
    memory.recordKernelView(procStatus: "VmSize:\t1000 kB\nVmRSS:\tlots\nRssFile: 12 MB\nVmRSSX:\t5 kB\n")
    XCTAssertEqual(memory, ProcessMemory(virtualBytes: 1000 * 1024))
    memory.recordKernelView(procStatus: "")
    XCTAssertEqual(memory, ProcessMemory(virtualBytes: 1000 * 1024))
  }

  func testMallocView_countsMappedBlocksAsInUse() {
    var memory = ProcessMemory()
    memory.recordMallocView(arena: 380 << 20, inUseInArenas: 300 << 20, freeInArenas: 80 << 20, mmapped: 20 << 20)
    XCTAssertEqual(
      memory, ProcessMemory(mallocInUse: 320 << 20, mallocFreeInArenas: 80 << 20, mallocArenaBytes: 380 << 20, mallocMmapped: 20 << 20))
  }

  func testArenaCount_countsTheHeapsOfMallocInfo() {
    let xml = """
      <malloc version="1">
      <heap nr="0">
      <sizes>
        <size from="33" to="48" total="48" count="1"/>
      </sizes>
      <total type="fast" count="0" size="0"/>
      </heap>
      <heap nr="1">
      <sizes>
      </sizes>
      </heap>
      <total type="mmap" count="2" size="413696"/>
      </malloc>

      """
    XCTAssertEqual(ProcessMemory.arenaCount(mallocInfo: xml), 2)
    XCTAssertNil(ProcessMemory.arenaCount(mallocInfo: "not malloc's"))
  }

  func testReadNow_readsThisProcess() throws {
    let memory = ProcessMemory.readNow()
    XCTAssertGreaterThan(try XCTUnwrap(memory.residentBytes), 0)
    XCTAssertGreaterThan(try XCTUnwrap(memory.virtualBytes), try XCTUnwrap(memory.residentBytes))
    if Self.mallocIsReplaced {
      XCTAssertNil(memory.mallocInUse, "another allocator than glibc's: malloc's view is unknown")
    } else {
      XCTAssertGreaterThan(try XCTUnwrap(memory.mallocInUse), 0)
      XCTAssertGreaterThanOrEqual(try XCTUnwrap(memory.mallocArenas), 1)
      XCTAssertNotNil(memory.mallocFreeInArenas)
    }
    XCTAssertNil(memory.swiftObjectCount, "the Swift objects are counted from a capture")
  }

  /// A live capture records this process's memory (read before its child is forked) and the
  /// objects it captured.
  func testSnapshot_recordsTheMemoryAtCapture() throws {
    AllocationTracker.start()
    defer { AllocationTracker.stop() }
    let generation = AllocationTracker.markGeneration()
    let things = (0..<10).map { _ in MemoryThing() }
    let snapshot = AllocationTracker.snapshot(inGeneration: generation)
    withExtendedLifetime(things) {}
    let memory = try XCTUnwrap(snapshot.metadata.memory)
    XCTAssertGreaterThanOrEqual(snapshot.objectCount, 10)
    XCTAssertEqual(memory.swiftObjectCount, snapshot.objectCount)
    XCTAssertEqual(memory.swiftObjectBytes, snapshot.objects.reduce(0) { $0 + ($1.size ?? 0) })
    XCTAssertGreaterThan(try XCTUnwrap(memory.residentBytes), 0)
    if !Self.mallocIsReplaced { XCTAssertGreaterThan(try XCTUnwrap(memory.mallocInUse), 0) }
    XCTAssertEqual(try HeapSnapshot(jsonBytes: snapshot.jsonBytes()).metadata.memory, memory)
  }

  /// Whether a sanitizer's allocator replaced glibc's in this test process (its mallinfo2 is all
  /// zeros).
  private static let mallocIsReplaced =
    dlsym(dlopen(nil, RTLD_NOW), "__asan_init") != nil
    || dlsym(dlopen(nil, RTLD_NOW), "__tsan_init") != nil
}

private final class MemoryThing {
  var payload = 7
}
