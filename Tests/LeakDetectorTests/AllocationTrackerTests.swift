import CLeakRuntime
import Foundation
import HeapGraph
import LeakDetector
import ThreadLocalFixture
import XCTest

final class TrackedThing {
  var next: TrackedThing?
  var handler: (() -> Void)?
}

final class OtherTrackedThing {}

final class FailingThing {
  let leaf = Leaf()
  init?(fail: Bool) {
    if fail { return nil }
  }
}

/// A class with tail-allocated elements whose owner uses the whole allocation, as
/// `ManagedBuffer.capacity` reports it (the allocator's usable size).
final class Samples: ManagedBuffer<Int, Int> {
  static func make(minimumCapacity: Int) -> Samples {
    // swiftlint:disable:next force_cast
    create(minimumCapacity: minimumCapacity) { _ in 0 } as! Samples
  }

  /// Writes a pattern into every element the allocation has room for, then reads it back.
  func fillAndCheck(seed: Int) -> Bool {
    withUnsafeMutablePointerToElements { elements in
      for index in 0..<capacity { (elements + index).initialize(to: seed &* 31 &+ index) }
      return (0..<capacity).allSatisfy { elements[$0] == seed &* 31 &+ $0 }
    }
  }
}

/// What the threads of the entry-block test allocate (a thread body cannot capture).
let keptByEndedThreads = Locked<[TrackedThing]>([])

/// Allocates a thing, and the return addresses of the stack it was allocated on (Foundation's,
/// from glibc's `backtrace`, which unwinds with DWARF call-frame information, not frame pointers).
@inline(never)
func makeTrackedThingAndBacktrace() -> (TrackedThing, backtrace: [UInt]) {
  let thing = TrackedThing()
  return (thing, Thread.callStackReturnAddresses.map(\.uintValue))
}

/// Allocates a thing and says on which line (the allocation site the stack test looks for).
@inline(never)
func makeTrackedThingAndLine() -> (TrackedThing, line: Int) {
  (TrackedThing(), #line)
}

@inline(never)
func makeTrackedThing() -> TrackedThing {
  makeTrackedThingAndLine().0
}

/// FBAllocationTracker's generation semantics, plus what it never had (stacks, snapshots).
final class AllocationTrackerTests: XCTestCase {
  override func setUp() {
    AllocationTracker.start()
  }

  override func tearDown() {
    AllocationTracker.stop()
  }

  func testTracker_usesInterpositionInThisProcess() {
    XCTAssertEqual(AllocationTracker.mechanism, .interposition)
    XCTAssertTrue(AllocationTracker.isRunning)
  }

  func testTracker_objectsGoToTheNewestGeneration() {
    let first = AllocationTracker.markGeneration()
    let early = (0..<3).map { _ in escaping(TrackedThing()) }
    let second = AllocationTracker.markGeneration()
    XCTAssertEqual(second, first + 1)
    let late = (0..<2).map { _ in escaping(TrackedThing()) } + [escaping(OtherTrackedThing())]
    XCTAssertEqual(AllocationTracker.liveCounts(inGeneration: first)["LeakDetectorTests.TrackedThing"], 3)
    XCTAssertEqual(AllocationTracker.liveCounts(inGeneration: second)["LeakDetectorTests.TrackedThing"], 2)
    XCTAssertEqual(AllocationTracker.liveCounts(inGeneration: second)["LeakDetectorTests.OtherTrackedThing"], 1)
    let addresses = Set(AllocationTracker.liveObjects(inGeneration: first).filter { $0.typeName.hasSuffix("TrackedThing") }.map(\.address))
    XCTAssertEqual(addresses, Set(early.map(address(of:))))
    XCTAssertEqual(AllocationTracker.generationSummary()[second]?["LeakDetectorTests.TrackedThing"], 2)
    withExtendedLifetime(late) {}
  }

  func testTracker_deallocationRemovesFromAnyGeneration() {
    let generation = AllocationTracker.markGeneration()
    var things: [TrackedThing]? = (0..<5).map { _ in TrackedThing() }
    AllocationTracker.markGeneration()
    XCTAssertEqual(AllocationTracker.liveCounts(inGeneration: generation)["LeakDetectorTests.TrackedThing"], 5)
    things = nil
    XCTAssertNil(AllocationTracker.liveCounts(inGeneration: generation)["LeakDetectorTests.TrackedThing"])
    XCTAssertNil(things)
  }

  func testTracker_objectsFromBeforeStart_areNotCountedAndFreeingThemIsHarmless() {
    AllocationTracker.stop()
    var before: TrackedThing? = TrackedThing()
    AllocationTracker.start()
    XCTAssertNil(AllocationTracker.liveCounts()["LeakDetectorTests.TrackedThing"])
    before = nil
    XCTAssertTrue(AllocationTracker.liveCounts().values.allSatisfy { $0 > 0 })
    XCTAssertNil(before)
  }

  func testTracker_seesUserGenericActorAndFoundationClasses() {
    let generation = AllocationTracker.markGeneration()
    let objects: [AnyObject] = [
      escaping(TrackedThing()), escaping(GenericHolder(1)), escaping(Counter()), escaping(JSONEncoder()),
      escaping(NSMutableArray()),
    ]
    let names = Set(AllocationTracker.liveObjects(inGeneration: generation).map(\.typeName))
    for expected in [
      "LeakDetectorTests.TrackedThing", "LeakDetectorTests.GenericHolder<Swift.Int>", "LeakDetectorTests.Counter",
      "FoundationEssentials.JSONEncoder", "Foundation.NSMutableArray",
    ] {
      XCTAssertTrue(names.contains(expected), "\(expected) not in \(names.sorted())")
    }
    XCTAssertFalse(names.contains { $0.hasPrefix("Swift._ContiguousArrayStorage") }, "stdlib storage is not tracked")
    withExtendedLifetime(objects) {}
  }

  func testTracker_failedFailableInitializer_leavesNoEntry() {
    let generation = AllocationTracker.markGeneration()
    for index in 0..<10 { _ = FailingThing(fail: index % 2 == 0).map(escaping) }
    XCTAssertEqual(AllocationTracker.liveCounts(inGeneration: generation)["LeakDetectorTests.FailingThing"], 5)
  }

  func testTracker_explicitTracking_followsTheObjectsLifetime() {
    AllocationTracker.stop()
    var object: TrackedThing? = TrackedThing()
    AllocationTracker.start()
    let generation = AllocationTracker.markGeneration()
    AllocationTracker.track(object!)
    XCTAssertEqual(AllocationTracker.liveCounts(inGeneration: generation)["LeakDetectorTests.TrackedThing"], 1)
    object = nil
    XCTAssertNil(AllocationTracker.liveCounts(inGeneration: generation)["LeakDetectorTests.TrackedThing"])
  }

  func testTracker_allocationStack_namesTheAllocatingFunctionAndLine() throws {
    AllocationTracker.stop()
    AllocationTracker.start(.init(capturesStacks: true))
    let generation = AllocationTracker.markGeneration()
    let (thing, line) = makeTrackedThingAndLine()
    _ = escaping(thing)
    let tracked = try XCTUnwrap(AllocationTracker.liveObjects(inGeneration: generation).first { $0.address == address(of: thing) })
    let frame = try XCTUnwrap(
      tracked.allocationStack.first { $0.symbol?.contains("makeTrackedThingAndLine") ?? false }, "\(tracked.allocationStack)")
    XCTAssertEqual(frame.file.map { URL(fileURLWithPath: $0).lastPathComponent }, "AllocationTrackerTests.swift")
    // Optimized code inlines the initializer: its frame is an inlined one, and this frame has the
    // line of the call.
    XCTAssertEqual(frame.line, line)
    XCTAssertFalse(tracked.allocationStack.contains { $0.symbol?.contains("cleak_tracker") ?? false }, "tracker frames are trimmed")
    let trackerFunctions = ["swift_allocObject", "allocateTracked", "allocationStack", "unw_backtrace"]
    XCTAssertFalse(
      tracked.allocationStack.contains { frame in trackerFunctions.contains { frame.symbol?.hasPrefix($0) ?? false } },
      "\(tracked.allocationStack)")
  }

  /// The stack the tracker walks along frame pointers is the one DWARF unwinding finds: from the
  /// allocating function's caller outwards, frame for frame, until the C library's own frames
  /// (which keep no frame pointer) end the walk.
  func testTracker_allocationStack_isTheStackDwarfUnwindingFinds() throws {
    AllocationTracker.stop()
    AllocationTracker.start(.init(capturesStacks: true))
    let generation = AllocationTracker.markGeneration()
    let (thing, unwound) = makeTrackedThingAndBacktrace()
    _ = escaping(thing)
    let tracked = try XCTUnwrap(AllocationTracker.liveObjects(inGeneration: generation).first { $0.address == address(of: thing) })
    let walked = AllocationTracker.programCounters(ofStack: tracked.stackID)
    // Both stacks hold the return address into this test method (the caller of the allocating
    // function): align them there.
    let start = try XCTUnwrap(unwound.firstIndex(where: walked.contains), "walked \(walked), unwound \(unwound)")
    let walkedStart = try XCTUnwrap(walked.firstIndex(of: unwound[start]))
    let common = zip(walked[walkedStart...], unwound[start...]).prefix { $0 == $1 }.count
    XCTAssertGreaterThanOrEqual(common, 5, "walked \(walked), unwound \(unwound)")
    XCTAssertGreaterThanOrEqual(common, walked.count - walkedStart - 2, "the walk ends at most two frames after they differ")
  }

  func testTracker_tailAllocatedObjects_areTrackedAndKeepTheirWholeAllocation() {
    let generation = AllocationTracker.markGeneration()
    var buffers: [Samples]? = (0..<50).map { Samples.make(minimumCapacity: $0) }
    #if DEBUG
      // Unoptimized code calls the standard library's `create`, which allocates inside
      // libswiftCore, where no interposer sees it.
      let expected: Int? = nil
    #else
      let expected: Int? = 50  // `create` is inlined: the allocation is this module's
    #endif
    XCTAssertEqual(AllocationTracker.liveCounts(inGeneration: generation)["LeakDetectorTests.Samples"], expected)
    XCTAssertTrue(buffers!.enumerated().allSatisfy { $1.fillAndCheck(seed: $0) }, "no element of the slack is the tracker's")
    XCTAssertEqual(AllocationTracker.liveCounts(inGeneration: generation)["LeakDetectorTests.Samples"], expected)
    buffers = nil
    // New buffers take the freed addresses: none may pass for a survivor of the first generation.
    let next = AllocationTracker.markGeneration()
    let reusing = (0..<50).map { Samples.make(minimumCapacity: $0) }
    XCTAssertNil(AllocationTracker.liveCounts(inGeneration: generation)["LeakDetectorTests.Samples"])
    XCTAssertEqual(AllocationTracker.liveCounts(inGeneration: next)["LeakDetectorTests.Samples"], expected)
    XCTAssertNil(buffers)
    withExtendedLifetime(reusing) {}
  }

  func testTracker_threadsThatEnd_giveTheirEntriesBack() {
    let generation = AllocationTracker.markGeneration()
    for _ in 0..<300 {  // one after the other, each joined: it has ended before the next starts
      var thread = pthread_t()
      XCTAssertEqual(
        pthread_create(
          &thread, nil,
          { _ in
            keptByEndedThreads.withLock { $0 += (0..<4).map { _ in TrackedThing() } }
            return nil
          }, nil), 0)
      pthread_join(thread, nil)
    }
    XCTAssertEqual(AllocationTracker.liveCounts(inGeneration: generation)["LeakDetectorTests.TrackedThing"], 1_200)
    // A thread takes a block of 512 entries; without giving it back when it ends, 300 threads
    // would have taken 300 blocks.
    XCTAssertLessThan(cleak_tracker_entry_capacity(), 64 * 512)
    keptByEndedThreads.withLock { $0.removeAll() }
    XCTAssertNil(AllocationTracker.liveCounts(inGeneration: generation)["LeakDetectorTests.TrackedThing"])
  }

  func testTracker_concurrentAllocationsGenerationsAndSnapshots_leaveNothingBehind() {
    let generation = AllocationTracker.markGeneration()
    DispatchQueue.concurrentPerform(iterations: 6) { worker in
      var kept: [TrackedThing] = []
      for round in 0..<20_000 {
        let thing = TrackedThing()
        if round % 3 == 0 { kept.append(thing) }
        if kept.count > 100 { kept.removeFirst(50) }
        if worker == 0 && round % 5_000 == 0 { AllocationTracker.markGeneration() }
        if worker == 1 && round % 7_000 == 0 { _ = AllocationTracker.snapshot(inGeneration: generation) }
      }
    }
    let leftovers = AllocationTracker.liveObjects().filter {
      $0.typeName == "LeakDetectorTests.TrackedThing" && $0.generation >= generation
    }
    XCTAssertEqual(leftovers, [], "every thread's objects were freed")
  }

  /// Queries read each tracked object to validate its entry, while other threads free those very
  /// objects: the reads must neither crash nor trip a sanitizer (Scripts/sanitizers runs this).
  func testTracker_queriesWhileOtherThreadsFree_areSafe() {
    let generation = AllocationTracker.markGeneration()
    let stop = Locked(false)
    let finished = DispatchGroup()
    let churners = (0..<2).map { _ in
      finished.enter()
      return Thread {
        defer { finished.leave() }
        var kept: [TrackedThing] = []
        while !stop.withLock({ $0 }) {
          kept.append(TrackedThing())
          if kept.count > 64 { kept.removeFirst(32) }
        }
      }
    }
    churners.forEach { $0.start() }
    var queries = 0
    let deadline = Date().addingTimeInterval(1)
    while Date() < deadline {
      _ = AllocationTracker.liveCounts(inGeneration: generation)
      queries += 1
    }
    stop.withLock { $0 = true }
    finished.wait()
    XCTAssertGreaterThan(queries, 10)
  }

  func testSnapshot_roundTripsAndFindsThePlantedCycle() throws {
    AllocationTracker.stop()
    AllocationTracker.start(.init(capturesStacks: true))
    let generation = AllocationTracker.markGeneration()
    do {
      let a = makeTrackedThing()
      let b = TrackedThing()
      a.next = b
      b.handler = { print(a) }  // a -> b -> closure -> a, then nothing else holds them
      _ = escaping(OtherTrackedThing())
    }
    let snapshot = AllocationTracker.snapshot(inGeneration: generation, process: "AllocationTrackerTests")
    let reread = try HeapSnapshot(jsonBytes: snapshot.jsonBytes())
    XCTAssertEqual(reread, snapshot)
    XCTAssertEqual(reread.metadata.process, "AllocationTrackerTests")
    let things = reread.objects.filter { $0.type == "LeakDetectorTests.TrackedThing" }
    XCTAssertEqual(things.count, 2)
    XCTAssertTrue(things.allSatisfy { $0.generation == generation && $0.size.map { $0 > 16 } == true && $0.stack != nil })
    let report = CycleFinder().findCycles(in: ObjectGraph(reread))
    // The closure captures only `a`, so its context is `a` itself: the closure is a node of its
    // own, without an address, named by its function.
    XCTAssertEqual(
      report.cycles.map(normalized),
      [
        "TrackedThing.handler -> closure #1 in AllocationTrackerTests.testSnapshot_roundTripsAndFindsThePlantedCycle()"
          + ".capture #0: TrackedThing -> TrackedThing.next -> TrackedThing"
      ])
    let site = try XCTUnwrap(report.cycles.first?.elements.first { $0.typeName.hasSuffix("TrackedThing") }?.allocationSite)
    XCTAssertTrue(site.contains { $0.line != nil && $0.file?.hasSuffix(".swift") == true }, "\(site)")
    // Break the cycle so the test leaves nothing behind: hold every thing first (breaking the
    // cycle frees the others, whose addresses must not be used after that).
    let held = AllocationTracker.liveObjects(inGeneration: generation).filter { $0.typeName.hasSuffix(".TrackedThing") }.map {
      Unmanaged<TrackedThing>.fromOpaque(UnsafeRawPointer(bitPattern: $0.address)!).takeUnretainedValue()
    }
    for thing in held { thing.handler = nil }
  }

  /// `leaks`-style analysis of a live capture: objects held from outside the snapshot (a local,
  /// a global array) are roots; a cycle nothing outside holds is leaked, whatever weak
  /// references (side tables) point at it.
  func testSnapshot_objectsHeldFromOutsideAreRoots_andAnUnheldCycleIsLeaked() throws {
    let generation = AllocationTracker.markGeneration()
    let local = makeTrackedThing()
    let global = escaping(OtherTrackedThing())
    weak var weakA: TrackedThing?
    do {
      let a = makeTrackedThing()
      let b = TrackedThing()
      a.next = b
      b.handler = { print(a) }
      weakA = a
      local.next = escaping(TrackedThing())  // held twice: by `local` and by the global array
    }
    let snapshot = AllocationTracker.snapshot(inGeneration: generation)
    defer { weakA?.next = nil }
    func id(of object: AnyObject) -> Int64? {
      let address = UInt64(UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque()))
      return snapshot.objects.first { $0.address == address }?.id
    }
    XCTAssertFalse(snapshot.objects.contains { $0.type.hasPrefix("LeakDetector.") }, "the detector's own objects are not listed")
    // XCTest's own watchdog may wait in an asyncAfter block (a runtime root); the rest are external.
    let roots = snapshot.roots.filter { $0.kind != .runtime }
    XCTAssertTrue(roots.allSatisfy { $0.kind == "external" }, "\(roots)")
    let expected = [id(of: local), id(of: global), id(of: local.next!)].compactMap { $0 }
    XCTAssertEqual(expected.count, 3)
    XCTAssertEqual(Set(roots.map(\.object)), Set(expected), "\(snapshot.objects) \(snapshot.roots)")
    XCTAssertEqual(roots.first { $0.object == id(of: global) }?.label, "2 strong references from outside the snapshot")

    let analysis = LeakAnalysis(graph: ObjectGraph(snapshot))
    XCTAssertTrue(analysis.hasRoots)
    XCTAssertEqual(analysis.leakedObjectCount, 2, "two objects; the closure that captures one is not an allocation")
    XCTAssertEqual(analysis.leakGroups.map(\.objectCount), [2])
    XCTAssertEqual(analysis.leakGroups.first?.summary.contains("TrackedThing"), true, "\(analysis.leakGroups)")
    withExtendedLifetime((local, global)) {}
  }

  /// A whole-process capture names what the calling thread's thread-local storage holds by the
  /// variable (here C's `_Thread_local threadLocalFixtureObject`) and the thread.
  func testWholeProcessCapture_namesAThreadLocalHolderByItsVariable() throws {
    AllocationTracker.start()
    defer { AllocationTracker.stop() }
    threadLocalFixtureSet(Unmanaged.passRetained(OtherTrackedThing()).toOpaque())
    defer { threadLocalFixtureGet().map { Unmanaged<OtherTrackedThing>.fromOpaque($0).release() } }
    let object = try XCTUnwrap(threadLocalFixtureGet())
    let (snapshot, failure) = AllocationTracker.captureWholeProcess(process: nil)
    XCTAssertNil(failure)
    let id = try XCTUnwrap(snapshot.objects.first { $0.address == UInt64(UInt(bitPattern: object)) }?.id)
    let labels = snapshot.roots.filter { $0.object == id }.map { "\($0.kind.rawValue) \($0.label ?? "")" }
    XCTAssertTrue(labels.contains("thread-local threadLocalFixtureObject (main thread)"), "\(labels)")
    XCTAssertFalse(labels.contains { $0.hasPrefix("external") }, "the variable explains the object's retain: \(labels)")
  }
}
