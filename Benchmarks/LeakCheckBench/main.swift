// leak-check-bench: what leak checks add to a test that leaks nothing.
//   - trackForLeaks: an XCTestCase that creates and tracks one object, run 2,000 times (best of 7
//     interleaved rounds), against
//     the same test without the call;
//   - generation mode: a test body that allocates (and frees) 10,000 objects inside
//     withLeakChecking { }, against the same body alone.
//   - naming a global holder: the capture a failing check makes for an object a global holds,
//     with the program's global data scanned and the holding variable named, against the same
//     capture without global data (median of 21, interleaved).
//   - pending work: the same capture with 1,000 tasks sleeping in `Task.sleep`, then with 1,000
//     `asyncAfter` blocks pending (median of 11 each).
//   - heap growth: expectNoHeapGrowth over a scenario that allocates and frees 1,000 objects,
//     with 10,000 live tracked objects (a test-sized heap), per measured iteration (each takes a
//     snapshot; the analysis of all of them is shared out), against one withLeakChecking above.
// Prints one JSON object; milliseconds are per test, best of 5 rounds.
@_spi(Internals) import LeakDetector
import LeakDetectorTesting
import XCTest

final class Item: @unchecked Sendable {
  var next: Item?
  var value = 0
}

final class BenchCases: XCTestCase {
  func plain() { _ = Item() }
  func tracked() { trackForLeaks(Item()) }
}

func milliseconds(_ body: () -> Void) -> Double {
  let start = ContinuousClock.now
  body()
  let elapsed = ContinuousClock.now - start
  return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) * 1000
}

@inline(never)
func allocateAndFree(_ count: Int) -> Int {
  var items: [Item] = []
  items.reserveCapacity(count)
  for index in 0..<count {
    let item = Item()
    item.value = index
    if index > 0 && index % 2 == 0 { item.next = items[index - 1] }
    items.append(item)
  }
  return items.reduce(0) { $0 + $1.value }
}

func best(_ rounds: Int = 5, _ body: () -> Double) -> Double { (0..<rounds).map { _ in body() }.min() ?? 0 }

// Heap growth, first too (see below): 10,000 live objects made while the tracker runs (as in a
// test under .detectsLeaks), then the check over a scenario that makes and frees 1,000 objects;
// 5 iterations, no warm-up: 6 snapshots and their analyses. Best of 3.
let growthIterations = 5
/// The test-sized heap, held by a global as a test's fixtures and singletons are.
nonisolated(unsafe) var growthLiveHeap: [Item] = []
nonisolated(unsafe) var growthSink = 0
func timeGrowthCheck() -> Double {
  AllocationTracker.start(.init(capturesStacks: true))
  defer {
    AllocationTracker.stop()
    growthLiveHeap = []
  }
  growthLiveHeap = (0..<10_000).map { index in
    let item = Item()
    item.value = index
    return item
  }
  return best(3) {
    milliseconds { expectNoHeapGrowth(iterations: growthIterations, warmUp: 0) { growthSink &+= allocateAndFree(1_000) } }
  }
}
let growthCheck = timeGrowthCheck()
let growthPerIteration = growthCheck / Double(growthIterations)

// First, while no test has run: every XCTest run leaves a watchdog timer pending for a while,
// and each capture reads the pending timers, which would swamp the difference measured here.
/// Held by a global, as a survivor a check names by its variable.
nonisolated(unsafe) var heldByAGlobal: [Item] = [Item()]
func capture(scanningGlobals: Bool) -> Double {
  milliseconds {
    let heap = AllocationTracker.leakCheckCapture(including: heldByAGlobal, scanningGlobalData: scanningGlobals)
    precondition(heap.failure == nil)
    precondition(!scanningGlobals || heap.snapshot.roots.contains { $0.label?.hasPrefix("leak_check_bench.heldByAGlobal") == true })
  }
}
_ = (capture(scanningGlobals: false), capture(scanningGlobals: true))
var withoutGlobals: [Double] = []
var withGlobals: [Double] = []
for _ in 0..<21 {
  withoutGlobals.append(capture(scanningGlobals: false))
  withGlobals.append(capture(scanningGlobals: true))
}
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
let globalBytes = AllocationTracker.globalDataByteCount

// Then the cost of pending work for a check's capture, against the same capture with none
// pending: 1,000 `asyncAfter` blocks, each capturing an object of its own and a value (so that
// its context is an object, looked into to see whether it holds a captured one); then 1,000
// tasks sleeping in `Task.sleep`, each holding an object of its own (each is read to see whether
// it leads to a captured object; it does not).
func captureTime() -> Double {
  milliseconds { precondition(AllocationTracker.leakCheckCapture(including: heldByAGlobal, scanningGlobalData: false).failure == nil) }
}
let beforeBlocks = (0..<11).map { _ in captureTime() }
let blockItems = (0..<1_000).map { _ in Item() }
for (index, item) in blockItems.enumerated() { DispatchQueue.global().asyncAfter(deadline: .now() + 3600) { item.value += index } }
let withBlocks = (0..<11).map { _ in captureTime() }
let withoutTasks = (0..<11).map { _ in captureTime() }
let sleepers = (0..<1_000).map { _ in
  let item = Item()
  return Task {
    try? await Task.sleep(for: .seconds(3600))
    item.value += 1
  }
}
Thread.sleep(forTimeInterval: 0.5)  // until they all sleep
let withTasks = (0..<11).map { _ in captureTime() }
sleepers.forEach { $0.cancel() }

let runs = 2_000
func runPlain() -> Double {
  milliseconds { for _ in 0..<runs { BenchCases(name: "plain") { ($0 as! BenchCases).plain() }.run() } } / Double(runs)
}
func runTracked() -> Double {
  milliseconds { for _ in 0..<runs { BenchCases(name: "tracked") { ($0 as! BenchCases).tracked() }.run() } } / Double(runs)
}
_ = (runPlain(), runTracked())  // warm up both
var plainTimes: [Double] = []
var trackedTimes: [Double] = []
for _ in 0..<7 {  // interleaved, so drift hits both
  plainTimes.append(runPlain())
  trackedTimes.append(runTracked())
}
let plainTest = plainTimes.min() ?? 0
let trackedTest = trackedTimes.min() ?? 0

var sink = 0
let plainBody = best { milliseconds { sink &+= allocateAndFree(10_000) } }
let checkedBody = best { milliseconds { withLeakChecking { sink &+= allocateAndFree(10_000) } } }

func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
print(
  "{\"trackForLeaks\": {\"plainTestMilliseconds\": \(rounded(plainTest)), \"trackedTestMilliseconds\": \(rounded(trackedTest)), "
    + "\"extraMilliseconds\": \(rounded(trackedTest - plainTest)), \"ratio\": \(rounded(trackedTest / plainTest))}, "
    + "\"generationMode10k\": {\"plainMilliseconds\": \(rounded(plainBody)), \"checkedMilliseconds\": \(rounded(checkedBody)), "
    + "\"extraMilliseconds\": \(rounded(checkedBody - plainBody)), \"ratio\": \(rounded(checkedBody / plainBody))}, "
    + "\"globalHolderNaming\": {\"captureMilliseconds\": \(rounded(median(withoutGlobals))), "
    + "\"captureNamingGlobalsMilliseconds\": \(rounded(median(withGlobals))), "
    + "\"extraMilliseconds\": \(rounded(median(withGlobals) - median(withoutGlobals))), \"globalDataBytes\": \(globalBytes)}, "
    + "\"pendingTasks1000\": {\"captureMilliseconds\": \(rounded(median(withoutTasks))), "
    + "\"captureWithTasksMilliseconds\": \(rounded(median(withTasks))), "
    + "\"extraMicrosecondsPerTask\": \(rounded((median(withTasks) - median(withoutTasks)) * 1000 / 1_000))}, "
    + "\"pendingBlocks1000\": {\"captureMilliseconds\": \(rounded(median(beforeBlocks))), "
    + "\"captureWithBlocksMilliseconds\": \(rounded(median(withBlocks))), "
    + "\"extraMicrosecondsPerBlock\": \(rounded((median(withBlocks) - median(beforeBlocks)) * 1000 / 1_000))}, "
    + "\"heapGrowth10kLive\": {\"checkMilliseconds\": \(rounded(growthCheck)), \"iterations\": \(growthIterations), "
    + "\"perIterationMilliseconds\": \(rounded(growthPerIteration)), "
    + "\"ratioToOneWithLeakChecking\": \(rounded(growthPerIteration / checkedBody))}, "
    + "\"sink\": \((sink &+ growthSink) % 2)}")
