import Foundation
import HeapGraph
import LeakDetector
import LeakTestSupport
import XCTest

/// Owners the runtime hides from type metadata: a task's closure and frames, the blocks
/// NotificationCenter keeps. Each strong variant is a retain cycle drawn through the owner,
/// named by the closure written in the source; each weak variant has none.
final class HiddenOwnersTests: XCTestCase {
  private func cycles(through owner: AnyObject) -> [String] {
    let type = String(reflecting: Swift.type(of: owner))
    return RetainCycleDetector.cycles(from: owner).filter { cycle in cycle.elements.contains { $0.typeName == type } }.map(\.description)
  }

  /// Waits until `owner`'s task is suspended (it has run to its first `await`).
  private func settle() { Thread.sleep(forTimeInterval: 0.1) }

  func testTask_strongSelf_isACycleThroughTheTaskAndItsClosure() throws {
    let owner = StreamCounter()
    hiddenOwnerSink.append(owner)
    owner.start(weakly: false)
    defer { owner.stop() }
    settle()
    let task = try XCTUnwrap(references(of: owner).first { $0.label == "task._task" })
    XCTAssertEqual(task.targetTypeName, "Task")
    XCTAssertEqual(task.targetKind, .task)
    let found = cycles(through: owner)
    XCTAssertTrue(
      found.contains {
        $0.hasPrefix("LeakTestSupport.StreamCounter.task._task -> Task.closure -> closure #")
          && $0.contains(" in LeakTestSupport.StreamCounter.start(weakly: Bool).capture #2: StreamCounter -> ")
      }, "\(found)")
  }

  func testTask_weakSelf_hasNoCycleThroughTheOwner() {
    let owner = StreamCounter()
    hiddenOwnerSink.append(owner)
    owner.start(weakly: true)
    defer { owner.stop() }
    settle()
    XCTAssertEqual(cycles(through: owner), [])
  }

  func testTask_sleeping_holdsItsClosure_andACompletedTaskHoldsNothing() async throws {
    let sleeping = SleepingTaskOwner()
    hiddenOwnerSink.append(sleeping)
    sleeping.startSleeping()
    defer { sleeping.stop() }
    try await Task.sleep(for: .milliseconds(100))
    XCTAssertTrue(cycles(through: sleeping).contains { $0.contains("Task.closure -> closure #1 in LeakDetectorTests.SleepingTaskOwner.startSleeping()") })

    let completed = SleepingTaskOwner()
    hiddenOwnerSink.append(completed)
    await completed.runToCompletion()
    defer { completed.stop() }
    XCTAssertEqual(cycles(through: completed), [])
  }

  func testNotificationObserver_strongSelf_isACycleThroughTheRegistration_untilRemoved() {
    let owner = HitCounter()
    hiddenOwnerSink.append(owner)
    owner.start(weakly: false)
    let found = cycles(through: owner)
    XCTAssertTrue(
      found.contains { $0.contains("LeakTestSupport.HitCounter.token -> ") && $0.contains("_NSNotificationObserverToken.registration -> ") },
      "\(found)")
    owner.stop()
    XCTAssertEqual(cycles(through: owner), [])
  }

  func testNotificationObserver_weakSelf_hasNoCycle() {
    let owner = HitCounter()
    hiddenOwnerSink.append(owner)
    owner.start(weakly: true)
    defer { owner.stop() }
    XCTAssertEqual(cycles(through: owner), [])
  }

  func testDispatchSource_strongSelf_isACycleThroughTheEventHandler_untilCancelled() throws {
    try skipWhereThreadSanitizerWrapsDispatchBlocks()
    let owner = Ticker()
    hiddenOwnerSink.append(owner)
    owner.start(weakly: false)
    let found = cycles(through: owner)
    XCTAssertTrue(
      found.contains {
        $0 == "Dispatch.DispatchSource.event handler -> closure #2 in LeakTestSupport.Ticker.start(weakly: Bool).capture #0: Ticker"
          + " -> LeakTestSupport.Ticker.source -> Dispatch.DispatchSource"
      },
      "\(found)")
    let handler = try XCTUnwrap(reflect(try XCTUnwrap(owner.source) as AnyObject).references.first { $0.label == "event handler" })
    XCTAssertEqual(handler.ownership, .strong)
    owner.stop()
    // libdispatch releases a cancelled source's handlers on its queue, a moment later.
    let deadline = Date().addingTimeInterval(2)
    while !cycles(through: owner).isEmpty && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
    XCTAssertEqual(cycles(through: owner), [])
  }

  func testDispatchSource_weakSelf_hasNoCycle() {
    let owner = Ticker()
    hiddenOwnerSink.append(owner)
    owner.start(weakly: true)
    defer { owner.stop() }
    XCTAssertEqual(cycles(through: owner), [])
  }

  func testWorkItem_strongSelf_isACycleThroughItsBlock_evenAfterItRan() {
    let owner = Incrementer()
    hiddenOwnerSink.append(owner)
    owner.start(weakly: false)
    defer { owner.stop() }
    let expected =
      "Dispatch.DispatchWorkItem.block -> closure #2 in LeakTestSupport.Incrementer.start(weakly: Bool).capture #0: Incrementer"
      + " -> LeakTestSupport.Incrementer.item -> Dispatch.DispatchWorkItem"
    XCTAssertEqual(cycles(through: owner), [expected])
    owner.item?.perform()  // libdispatch keeps the block until the item is deallocated
    XCTAssertEqual(cycles(through: owner), [expected])
  }

  func testWorkItem_weakSelf_hasNoCycle() {
    let owner = Incrementer()
    hiddenOwnerSink.append(owner)
    owner.start(weakly: true)
    defer { owner.stop() }
    XCTAssertEqual(cycles(through: owner), [])
  }

  /// The leak analysis of a tracker snapshot (what `leak-detector analyze` runs) calls a task
  /// cycle leaked once nothing else holds the owner: the conservative frame words and the
  /// continuation that will resume the task account for the task's and the owner's retains.
  func testTrackerSnapshot_leakAnalysis_callsTheStrongTaskCycleLeaked() throws {
    AllocationTracker.start()
    defer { AllocationTracker.stop() }
    let generation = AllocationTracker.markGeneration()
    var strong: StreamCounter? = StreamCounter()
    strong?.start(weakly: false)
    weak let weakStrong = strong
    strong = nil
    settle()
    defer { weakStrong?.stop() }
    let snapshot = AllocationTracker.snapshot(inGeneration: generation)
    let graph = ObjectGraph(snapshot)
    let analysis = LeakAnalysis(graph: graph)
    let summaries = analysis.leakGroups.map(\.summary)
    XCTAssertTrue(summaries.contains { $0.contains("LeakTestSupport.StreamCounter") }, "\(summaries) roots: \(snapshot.roots)")
  }

  /// The same for the source and work item cycles; their weak variants leak nothing. An observer
  /// whose block captures it is a cycle in the snapshot too, but not leaked: the notification
  /// centre holds the block (from outside the generation) until `removeObserver`.
  func testTrackerSnapshot_leakAnalysis_callsTheStrongDispatchCyclesLeaked_andTheObserverHeldByTheCentre() throws {
    try skipWhereThreadSanitizerWrapsDispatchBlocks()
    AllocationTracker.start()
    defer { AllocationTracker.stop() }
    let generation = AllocationTracker.markGeneration()
    var stops: [() -> Void] = []
    func start<Owner: AnyObject>(_ make: () -> Owner, _ begin: (Owner, Bool) -> Void, _ stop: @escaping (Owner) -> Void) {
      for weakly in [false, true] {
        var owner: Owner? = make()
        begin(owner!, weakly)
        weak let released = owner
        owner = nil
        stops.append { released.map(stop) }
      }
    }
    start(Ticker.init, { $0.start(weakly: $1) }, { $0.stop() })
    start(Incrementer.init, { $0.start(weakly: $1) }, { $0.stop() })
    start(HitCounter.init, { $0.start(weakly: $1) }, { $0.stop() })
    defer { stops.forEach { $0() } }
    let snapshot = AllocationTracker.snapshot(inGeneration: generation)
    let graph = ObjectGraph(snapshot)
    let summaries = LeakAnalysis(graph: graph).leakGroups.map(\.summary)
    for owner in ["Ticker", "Incrementer"] {
      XCTAssertEqual(summaries.filter { $0.contains("LeakTestSupport.\(owner).") }.count, 1, "\(owner): \(summaries)")
    }
    XCTAssertFalse(summaries.contains { $0.contains("HitCounter") }, "\(summaries)")
    let cycles = CycleFinder().findCycles(in: graph).cycles.map(\.description)
    XCTAssertEqual(cycles.filter { $0.contains("LeakTestSupport.HitCounter.token -> ") }.count, 1, "\(cycles)")
  }

  /// The root a capture with roots gives `object`'s holder, as `kind label: closure -> object`.
  private func runtimeHolders(of object: AnyObject) throws -> [String] {
    let heap = AllocationTracker.captureLiveHeap(including: [object])
    XCTAssertNil(heap.failure)
    let graph = ObjectGraph(heap.snapshot)
    let target = try XCTUnwrap(heap.objectIDs[UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())])
    return graph.roots.filter { $0.kind == .runtime }.compactMap { root in
      graph.strongReferences(of: root.node).first { graph.objectID(of: $0.target) == target }.map { edge in
        "\(root.label ?? ""): \(graph.typeName(of: root.node)).\(edge.label ?? "") -> \(graph.typeName(of: edge.target))"
      }
    }
  }

  func testAsyncAfterBlock_holdsWhatItCaptures_asARuntimeRoot() throws {
    try skipWhereThreadSanitizerWrapsDispatchBlocks()
    let worker = DelayedWorker()
    hiddenOwnerSink.append(worker)
    worker.scheduleInAnHour()
    XCTAssertEqual(
      try runtimeHolders(of: worker),
      [
        "a block asyncAfter scheduled, not yet run: closure #1 in LeakDetectorTests.DelayedWorker.scheduleInAnHour()"
          + ".capture #0: DelayedWorker -> LeakDetectorTests.DelayedWorker"
      ])
    XCTAssertEqual(cycles(through: worker), [], "a pending block is a holder, not a cycle")
  }

  func testMainQueueBlock_holdsWhatItCaptures_untilTheMainQueueRunsIt() throws {
    try skipWhereThreadSanitizerWrapsDispatchBlocks()
    let worker = DelayedWorker()
    worker.scheduleOnMain()
    XCTAssertEqual(
      try runtimeHolders(of: worker),
      [
        "a block waiting on the main queue: closure #1 in LeakDetectorTests.DelayedWorker.scheduleOnMain()"
          + ".capture #0: DelayedWorker -> LeakDetectorTests.DelayedWorker"
      ])
    RunLoop.main.run(until: Date() + 0.1)
    XCTAssertEqual(worker.n, 1)
    XCTAssertEqual(try runtimeHolders(of: worker), [])
  }

  func testSuspendedQueue_pendingBlockCapturingItsOwner_isACycleUntilItRuns() throws {
    try skipWhereThreadSanitizerWrapsDispatchBlocks()
    let worker = DelayedWorker()
    hiddenOwnerSink.append(worker)
    worker.enqueueOnSuspendedQueue()
    XCTAssertEqual(
      cycles(through: worker),
      [
        "Dispatch.DispatchQueue.pending block -> closure #1 in LeakDetectorTests.DelayedWorker.enqueueOnSuspendedQueue()"
          + ".capture #0: DelayedWorker -> LeakDetectorTests.DelayedWorker.queue -> Dispatch.DispatchQueue"
      ])
    worker.resume()
    XCTAssertEqual(worker.n, 1)
    XCTAssertEqual(cycles(through: worker), [])
  }

  func testRunLoopPerform_blockHoldsWhatItCaptures_untilTheMainRunLoopRunsIt() throws {
    let worker = DelayedWorker()
    worker.performOnMainRunLoop()
    XCTAssertEqual(
      try runtimeHolders(of: worker),
      [
        "a block waiting on the main run loop: closure #1 in LeakDetectorTests.DelayedWorker.performOnMainRunLoop()"
          + ".capture #0: DelayedWorker -> LeakDetectorTests.DelayedWorker"
      ])
    XCTAssertTrue(
      references(of: RunLoop.main).contains { $0.label == "pending block" && $0.targetAddress == address(of: worker) },
      "\(references(of: RunLoop.main))")
    RunLoop.main.run(until: Date() + 0.1)
    XCTAssertEqual(worker.n, 1)
    XCTAssertEqual(try runtimeHolders(of: worker), [])
  }
}
