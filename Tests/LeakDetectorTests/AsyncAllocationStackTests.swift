import HeapGraph
import LeakDetector
import XCTest

final class AsyncAllocatedThing: Sendable {}

/// Allocates after an `await`, when the concurrency runtime, not the caller, runs the rest.
@inline(never)
func allocateAfterAwaiting() async -> AsyncAllocatedThing {
  await Task.yield()
  return escaping(AsyncAllocatedThing())
}

/// The logical caller that the allocation stack must name, though no frame of its is on the
/// thread's stack when the callee allocates.
@inline(never)
func awaitTheAllocation() async -> AsyncAllocatedThing {
  let thing = await allocateAfterAwaiting()
  return escaping(thing)
}

/// Awaits itself `depth` times, then allocates after a suspension: more async callers than a
/// stack holds.
@inline(never)
func allocateDeepInAsyncCalls(_ depth: Int) async -> AsyncAllocatedThing {
  if depth == 0 {
    await Task.yield()
    return escaping(AsyncAllocatedThing())
  }
  let thing = await allocateDeepInAsyncCalls(depth - 1)
  return escaping(thing)
}

/// Allocation stacks taken in async code go on from the async function along its callers' async
/// contexts, as the runtime's backtracer does.
final class AsyncAllocationStackTests: XCTestCase {
  func testTracker_allocationAfterAnAwait_stackNamesTheAsyncCallersUpToTheTest() async throws {
    AllocationTracker.start(.init(capturesStacks: true))
    defer { AllocationTracker.stop() }
    let generation = AllocationTracker.markGeneration()
    let thing = await awaitTheAllocation()
    let tracked = try XCTUnwrap(AllocationTracker.liveObjects(inGeneration: generation).first { $0.address == address(of: thing) })
    let symbols = tracked.allocationStack.map { $0.symbol ?? "?" }
    func position(_ part: String) -> Int? { symbols.firstIndex { $0.contains(part) } }
    let allocating = try XCTUnwrap(position("allocateAfterAwaiting"), "\(symbols)")
    let caller = try XCTUnwrap(position("awaitTheAllocation"), "\(symbols)")
    let test = try XCTUnwrap(position("testTracker_allocationAfterAnAwait"), "\(symbols)")
    XCTAssertLessThan(allocating, caller, "\(symbols)")
    XCTAssertLessThan(caller, test, "\(symbols)")
    XCTAssertFalse(symbols.contains { $0.contains("runJobInEstablishedExecutorContext") }, "\(symbols)")
    let callerFrame = tracked.allocationStack[caller]
    XCTAssertEqual(callerFrame.file.map { URL(fileURLWithPath: $0).lastPathComponent }, "AsyncAllocationStackTests.swift")
  }

  func testTracker_allocationUnderMoreAsyncCallersThanAStackHolds_keepsTheInnermostOnes() async throws {
    AllocationTracker.start(.init(capturesStacks: true))
    defer { AllocationTracker.stop() }
    let generation = AllocationTracker.markGeneration()
    let thing = await allocateDeepInAsyncCalls(100)
    let tracked = try XCTUnwrap(AllocationTracker.liveObjects(inGeneration: generation).first { $0.address == address(of: thing) })
    let stack = AllocationTracker.programCounters(ofStack: tracked.stackID)
    XCTAssertEqual(stack.count, 64, "the stack's capacity")
    // Past the allocating frame, every caller is the recursion (optimized code inlines the
    // initializer into the allocating frame: a frame of its own, marked inlined).
    let callers = tracked.allocationStack.filter { !$0.inlined }.dropFirst()
    XCTAssertTrue(callers.allSatisfy { $0.symbol?.contains("allocateDeepInAsyncCalls") ?? false }, "\(tracked.allocationStack)")
  }

  func testTracker_allocationInATaskTheTestSpawned_endsAtTheTasksClosure() async throws {
    AllocationTracker.start(.init(capturesStacks: true))
    defer { AllocationTracker.stop() }
    let generation = AllocationTracker.markGeneration()
    let thing = await Task.detached {
      await Task.yield()
      return escaping(AsyncAllocatedThing())
    }.value
    let tracked = try XCTUnwrap(AllocationTracker.liveObjects(inGeneration: generation).first { $0.address == address(of: thing) })
    let symbols = tracked.allocationStack.map { $0.symbol ?? "?" }
    XCTAssertTrue(
      symbols.contains { $0.contains("closure #1") && $0.contains("testTracker_allocationInATaskTheTestSpawned") }, "\(symbols)")
    XCTAssertTrue(symbols.last?.contains("completeTask") ?? false, "a task's first function returns to the runtime: \(symbols)")
  }
}
