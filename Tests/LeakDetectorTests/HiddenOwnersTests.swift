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

  /// Waits until `owner`'s task has run to its first `await` and waits there.
  private func waitUntilSuspended(_ owner: StreamCounter) {
    XCTAssertTrue(eventually { owner.task.map(hasSuspended) ?? false }, "the task never reached its first await")
  }

  func testTask_strongSelf_isACycleThroughTheTaskAndItsClosure() throws {
    let owner = StreamCounter()
    hiddenOwnerSink.append(owner)
    owner.start(weakly: false)
    defer { owner.stop() }
    waitUntilSuspended(owner)
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
    waitUntilSuspended(owner)
    XCTAssertEqual(cycles(through: owner), [])
  }

  func testTask_sleeping_holdsItsClosure_andACompletedTaskHoldsNothing() async throws {
    let sleeping = SleepingTaskOwner()
    hiddenOwnerSink.append(sleeping)
    sleeping.startSleeping()
    defer { sleeping.stop() }
    let hasSlept = await eventually { sleeping.task.map(hasSuspended) ?? false }
    XCTAssertTrue(hasSlept, "the task never reached its sleep")
    XCTAssertTrue(
      cycles(through: sleeping).contains {
        $0.contains("Task.closure -> closure #1 in LeakDetectorTests.SleepingTaskOwner.startSleeping()")
      })

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
      found.contains {
        $0.contains("LeakTestSupport.HitCounter.token -> ") && $0.contains("_NSNotificationObserverToken.registration -> ")
      },
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
    XCTAssertTrue(eventually { cycles(through: owner).isEmpty }, "\(cycles(through: owner))")
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
    if let weakStrong { waitUntilSuspended(weakStrong) }
    defer { weakStrong?.stop() }
    let snapshot = AllocationTracker.snapshot(inGeneration: generation)
    let graph = ObjectGraph(snapshot)
    let analysis = LeakAnalysis(graph: graph)
    let summaries = analysis.leakGroups.map(\.summary)
    XCTAssertTrue(summaries.contains { $0.contains("LeakTestSupport.StreamCounter") }, "\(summaries) roots: \(snapshot.roots)")
  }

  /// The same for the work item cycle; the weak variants leak nothing. The timer source cycle is
  /// not leaked once libdispatch has armed the timer (on its own thread, a moment after
  /// `resume`): an armed timer can run its handler at any time, so the timer holds what the
  /// handler captures. An observer whose block captures it is a cycle in the snapshot too, but
  /// not leaked: the notification centre holds the block (from outside the generation) until
  /// `removeObserver`.
  func testTrackerSnapshot_leakAnalysis_callsTheStrongWorkItemCycleLeaked_theArmedTimerAndTheObserverHeld() throws {
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
    var graph = ObjectGraph(AllocationTracker.snapshot(inGeneration: generation))
    var summaries = LeakAnalysis(graph: graph).leakGroups.map(\.summary)
    _ = eventually {
      graph = ObjectGraph(AllocationTracker.snapshot(inGeneration: generation))
      summaries = LeakAnalysis(graph: graph).leakGroups.map(\.summary)
      return !summaries.contains { $0.contains("LeakTestSupport.Ticker.") }
    }
    XCTAssertEqual(summaries.filter { $0.contains("LeakTestSupport.Incrementer.") }.count, 1, "Incrementer: \(summaries)")
    XCTAssertFalse(summaries.contains { $0.contains("Ticker") || $0.contains("HitCounter") }, "\(summaries)")
    let cycles = CycleFinder().findCycles(in: graph).cycles.map(\.description)
    XCTAssertEqual(cycles.filter { $0.contains("LeakTestSupport.HitCounter.token -> ") }.count, 1, "\(cycles)")
  }

  func testAsyncAfterBlock_holdsWhatItCaptures_asARuntimeRoot() throws {
    try skipWhereThreadSanitizerWrapsDispatchBlocks()
    let worker = DelayedWorker()
    hiddenOwnerSink.append(worker)
    worker.scheduleInAnHour()
    // Dispatch's manager thread arms the timer after asyncAfter returns: on a loaded machine a
    // capture can come first, when only the timer source in transit holds the block.
    let expected =
      "a block asyncAfter scheduled, not yet run: closure #1 in LeakDetectorTests.DelayedWorker.scheduleInAnHour()"
      + ".capture #0: DelayedWorker -> LeakDetectorTests.DelayedWorker"
    // A capture taken while that thread rewrites the timer heap may fail in its child (the
    // host is untouched) and is taken again, as a capture that failed is by whoever asked for it.
    var path = ""
    var failures: [CaptureFailure] = []
    _ = eventually {
      path = runtimePath(to: worker, failures: &failures)
      return path == expected
    }
    XCTAssertEqual(path, expected, "captures that failed: \(failures)")
    XCTAssertEqual(cycles(through: worker), [], "a pending block is a holder, not a cycle")
  }

  func testMainQueueBlock_holdsWhatItCaptures_untilTheMainQueueRunsIt() throws {
    try skipWhereThreadSanitizerWrapsDispatchBlocks()
    let worker = DelayedWorker()
    worker.scheduleOnMain()
    XCTAssertEqual(
      runtimePath(to: worker),
      "a block waiting on the main queue: closure #1 in LeakDetectorTests.DelayedWorker.scheduleOnMain()"
        + ".capture #0: DelayedWorker -> LeakDetectorTests.DelayedWorker")
    RunLoop.main.run(until: Date() + 0.1)
    XCTAssertEqual(worker.n, 1)
    XCTAssertEqual(runtimePath(to: worker), "")
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
      runtimePath(to: worker),
      "a block waiting on the main run loop: closure #1 in LeakDetectorTests.DelayedWorker.performOnMainRunLoop()"
        + ".capture #0: DelayedWorker -> LeakDetectorTests.DelayedWorker")
    XCTAssertTrue(
      references(of: RunLoop.main).contains { $0.label == "pending block" && $0.targetAddress == address(of: worker) },
      "\(references(of: RunLoop.main))")
    RunLoop.main.run(until: Date() + 0.1)
    XCTAssertEqual(worker.n, 1)
    XCTAssertEqual(runtimePath(to: worker), "")
  }

  /// The shortest path of strong references to `object` from a root of kind `runtime`, in a
  /// capture with roots: `label: Type.edge -> … -> Type`, or "" when no such root reaches it.
  /// (The test's own references make `object` a root too; this path leaves them aside.)
  private func runtimePath(to object: AnyObject) -> String {
    var failures: [CaptureFailure] = []
    let path = runtimePath(to: object, failures: &failures)
    XCTAssertEqual(failures, [])
    return path
  }

  /// ``runtimePath(to:)``, with a capture that failed added to `failures` (and "" returned).
  private func runtimePath(to object: AnyObject, failures: inout [CaptureFailure]) -> String {
    let heap = AllocationTracker.captureLiveHeap(including: [object])
    if let failure = heap.failure {
      failures.append(failure)
      return ""
    }
    let graph = ObjectGraph(heap.snapshot)
    guard let id = heap.objectIDs[address(of: object)], let target = graph.node(forObjectID: id) else {
      XCTFail("the capture has no node for the object")
      return ""
    }
    var parent: [Int: (node: Int, label: String)] = [:]
    var labels: [Int: String] = [:]
    var queue = graph.roots.filter { $0.kind == .runtime }.map(\.node)
    for root in graph.roots where root.kind == .runtime { labels[root.node] = labels[root.node] ?? root.label ?? "" }
    var seen = Set(queue)
    var index = 0
    while index < queue.count && !seen.contains(target) {
      let node = queue[index]
      index += 1
      for edge in graph.strongReferences(of: node) where seen.insert(edge.target).inserted {
        parent[edge.target] = (node, edge.label ?? "")
        queue.append(edge.target)
      }
    }
    guard seen.contains(target) else { return "" }
    var steps = [graph.typeName(of: target)]
    var node = target
    while let step = parent[node] {
      steps.insert("\(graph.typeName(of: step.node)).\(step.label)", at: 0)
      node = step.node
    }
    return "\(labels[node] ?? ""): " + steps.joined(separator: " -> ")
  }

  func testSleepingTask_holdsWhatItsClosureCaptures_untilCancelled() throws {
    try skipWhereThreadSanitizerWrapsDispatchBlocks()
    let napper = Napper()
    hiddenOwnerSink.append(napper)
    let task = napper.napForAnHour(weakly: false)
    let holder = "the timer of Task.sleep, until the task wakes: Task."
    XCTAssertTrue(eventually { runtimePath(to: napper).hasPrefix(holder) }, runtimePath(to: napper))
    XCTAssertTrue(runtimePath(to: napper).hasSuffix(" -> LeakTestSupport.Napper"), runtimePath(to: napper))
    XCTAssertEqual(cycles(through: napper), [], "a sleeping task is a holder, not a cycle")
    task.cancel()
    XCTAssertTrue(eventually { runtimePath(to: napper).isEmpty }, runtimePath(to: napper))
  }

  /// The weak variant's closure does not hold the object. (Its task's frame words are read
  /// conservatively: while the test itself holds the object, a stale word naming it cannot be
  /// told from a real one, so this looks at the closure; the leak check, where nothing else
  /// holds the object, passes: `HiddenOwnerLeakCheckTests`.)
  func testSleepingTask_weakSelf_closureHoldsNothing() {
    let napper = Napper()
    hiddenOwnerSink.append(napper)
    let task = napper.napForAnHour(weakly: true)
    defer { task.cancel() }
    XCTAssertTrue(eventually { hasSuspended(task) }, "the task never reached its sleep")
    XCTAssertFalse(runtimePath(to: napper).contains("Task.closure"), runtimePath(to: napper))
  }

  func testTaskGroup_theSleepingChildHoldsTheObject_andItsParentKeepsIt() throws {
    try skipWhereThreadSanitizerWrapsDispatchBlocks()
    let napper = GroupNapper()
    hiddenOwnerSink.append(napper)
    let task = napper.start()
    defer { task.cancel() }
    XCTAssertTrue(
      eventually { runtimePath(to: napper).hasPrefix("the timer of Task.sleep, until the task wakes: Task.") }, runtimePath(to: napper))
    let heap = AllocationTracker.captureLiveHeap(including: [napper])
    let graph = ObjectGraph(heap.snapshot)
    let child = try XCTUnwrap(graph.roots.first { $0.label == "the timer of Task.sleep, until the task wakes" }?.node)
    XCTAssertNotNil(graph.allocationStack(of: child), "a task's site is the closure it runs")
    // The parent task, which waits for the group, holds the child, and the child keeps it.
    let parent = unsafeBitCast(task, to: AnyObject.self)  // a `Task` is its task object
    let childAddress = try XCTUnwrap(heap.snapshot.objects.first { $0.id == graph.objectID(of: child) }?.address)
    XCTAssertEqual(references(of: parent).filter { $0.label == "child task" }.map { UInt64($0.targetAddress) }, [childAddress])
    let childTask = Unmanaged<AnyObject>.fromOpaque(try XCTUnwrap(UnsafeRawPointer(bitPattern: UInt(childAddress)))).takeUnretainedValue()
    XCTAssertEqual(
      references(of: childTask).filter { $0.label == "parent task" }.map { UInt($0.targetAddress) },
      [UInt(bitPattern: Unmanaged.passUnretained(parent).toOpaque())], "the child keeps its parent, which waits for the group")
  }

  func testMainActorTask_waitingOnTheMainQueue_holdsWhatItCaptures_untilItRuns() throws {
    try skipWhereThreadSanitizerWrapsDispatchBlocks()
    let worker = DelayedWorker()
    hiddenOwnerSink.append(worker)
    worker.startMainActorTask()
    XCTAssertTrue(runtimePath(to: worker).hasPrefix("the main queue, until the task runs: Task."), runtimePath(to: worker))
    RunLoop.main.run(until: Date() + 0.1)
    XCTAssertEqual(worker.n, 1)
    XCTAssertEqual(runtimePath(to: worker), "")
  }

  func testScheduledTimer_holdsWhatItsBlockCaptures_untilInvalidated() {
    let metronome = Metronome()
    hiddenOwnerSink.append(metronome)
    metronome.start(weakly: false)
    XCTAssertEqual(
      runtimePath(to: metronome),
      "the main run loop, until the timer is invalidated: Foundation.Timer._fire -> closure #2 in"
        + " LeakTestSupport.Metronome.start(weakly: Bool).capture #0: Metronome -> LeakTestSupport.Metronome")
    XCTAssertTrue(references(of: RunLoop.main).contains { $0.label == "scheduled timer" && $0.targetTypeName == "Foundation.Timer" })
    metronome.stop()
    XCTAssertEqual(runtimePath(to: metronome), "")
  }

  func testScheduledTimer_weakSelf_holdsNothing() {
    let metronome = Metronome()
    hiddenOwnerSink.append(metronome)
    metronome.start(weakly: true)
    defer { metronome.stop() }
    XCTAssertEqual(runtimePath(to: metronome), "")
  }

  /// In a tracker snapshot (what `leak-detector analyze` reads), an object only a sleeping task
  /// or a scheduled timer holds is held, not leaked: its retaining path starts at the holder.
  func testTrackerSnapshot_objectsHeldBySleepingTasksAndTimers_areHeldNotLeaked() throws {
    try skipWhereThreadSanitizerWrapsDispatchBlocks()
    AllocationTracker.start()
    defer { AllocationTracker.stop() }
    let generation = AllocationTracker.markGeneration()
    var napper: Napper? = Napper()
    let task = napper!.napForAnHour(weakly: false)
    defer { task.cancel() }
    var metronome: Metronome? = Metronome()
    metronome!.start(weakly: false)
    weak let weakMetronome = metronome
    defer { weakMetronome?.stop() }
    napper = nil
    metronome = nil
    XCTAssertTrue(eventually { isAsleep(task) }, "the task never reached its sleep")
    let analysis = HeapAnalysis(graph: ObjectGraph(AllocationTracker.snapshot(inGeneration: generation)))
    let summaries = analysis.leaks.leakGroups.map(\.summary)
    XCTAssertFalse(summaries.contains { $0.contains("Napper") || $0.contains("Metronome") }, "\(summaries)")
    let graph = analysis.graph
    func path(to type: String) -> String {
      graph.nodes.first { graph.typeName(of: $0) == type }.map { analysis.retainingPath(to: $0).description } ?? "no \(type)"
    }
    let napperPath = path(to: "LeakTestSupport.Napper")
    XCTAssertTrue(napperPath.hasPrefix("runtime the timer of Task.sleep, until the task wakes: Task."), napperPath)
    XCTAssertEqual(
      path(to: "LeakTestSupport.Metronome"),
      "runtime the main run loop, until the timer is invalidated: Foundation.Timer._fire -> closure #2 in"
        + " LeakTestSupport.Metronome.start(weakly: Bool).capture #0: Metronome -> LeakTestSupport.Metronome")
  }
}
