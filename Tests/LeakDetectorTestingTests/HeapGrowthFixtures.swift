import Foundation
import LeakDetectorTesting
import LeakTestSupport

// Scenarios for expectNoHeapGrowth. What they keep is stored in globals, so that release builds
// cannot keep it on the stack or drop it.

/// An object a scenario makes.
final class GrowthItem {
  var value = 0
}

/// Grows by one item per call.
nonisolated(unsafe) var growingItems: [GrowthItem] = []

/// The line an allocation stack names for `appendGrowthItem()`: the allocating line, in release
/// builds too, where the initializer is inlined there (a frame of its own, called from it).
let appendGrowthItemLine = #line + 3
@inline(never) func appendGrowthItem() {
  let item =
    GrowthItem()
  growingItems.append(item)
}

/// Keeps its last `capacity` items.
final class BoundedCache {
  let capacity: Int
  var entries: [GrowthItem] = []

  init(capacity: Int) { self.capacity = capacity }

  @inline(never) func insert(_ item: GrowthItem) {
    entries.append(item)
    if entries.count > capacity { entries.removeFirst() }
  }
}

nonisolated(unsafe) var boundedCache: BoundedCache?

/// Inserts a new item into `boundedCache` (of 3 items), made on first use.
@inline(never) func insertIntoBoundedCache() {
  if boundedCache == nil { boundedCache = BoundedCache(capacity: 3) }
  boundedCache!.insert(GrowthItem())
}

/// Made on first use, then the same.
final class LazySingleton {
  nonisolated(unsafe) static var shared: LazySingleton?
  var items = [GrowthItem(), GrowthItem()]

  @inline(never) static func use() -> Int {
    if shared == nil { shared = LazySingleton() }
    return shared!.items.count
  }
}

/// Where transient work leaves its result (a number, not the objects).
nonisolated(unsafe) var transientSink = 0

/// Makes 100 objects, uses them and drops them.
@inline(never) func doTransientWork() {
  let items = (0..<100).map { index in
    let item = GrowthItem()
    item.value = index
    return item
  }
  transientSink &+= items.reduce(0) { $0 + $1.value }
}

/// Continuations of tasks that wait forever (until a test resumes them).
final class ParkedTasks: @unchecked Sendable {
  private let lock = NSLock()
  private var continuations: [CheckedContinuation<Void, Never>] = []

  var count: Int { lock.withLock { continuations.count } }

  func park(_ continuation: CheckedContinuation<Void, Never>) { lock.withLock { continuations.append(continuation) } }

  func resumeAll() {
    for continuation in lock.withLock({ () -> [CheckedContinuation<Void, Never>] in
      defer { continuations.removeAll() }
      return continuations
    }) {
      continuation.resume()
    }
  }
}

let parkedTasks = ParkedTasks()

/// Starts a task that waits for a continuation nobody resumes (keeping a worker), and waits until it has suspended:
/// the task parks its continuation just before it suspends, and until then it runs, so its thread
/// still holds the continuation (a capture in that moment finds its canary through the running
/// task, not through `parkedTasks`; seen under AddressSanitizer).
@inline(never) func startNeverEndingTask() async {
  let worker = GrowthWorker()
  let task = Task {
    await withCheckedContinuation { parkedTasks.park($0) }
    worker.finish()
  }
  await eventually { hasSuspended(task) }
}

/// The article's server, as it should not be: it logs every response it makes and never trims
/// the log.
final class UntrimmedFeedServer: @unchecked Sendable {
  static let shared = UntrimmedFeedServer()
  private var log: [FeedResponse] = []

  @inline(never) func handle(path: String) {
    let response = FeedResponse(path: path)
    log.append(response)
  }
}

/// What a server makes per request.
final class FeedResponse {
  let path: String
  var status = 200

  init(path: String) { self.path = path }
}

/// A server-like program with the three classic growths: it caches every response, appends an
/// update handler per request and starts a task per request that never ends.
final class GrowingServer: @unchecked Sendable {
  static let shared = GrowingServer()
  private var cache: [String: FeedResponse] = [:]
  private var handlers: [(Int) -> Void] = []
  let parked = ParkedTasks()
  private var requests = 0

  @inline(never) func handle() async {
    requests += 1
    let response = FeedResponse(path: "/feed/\(requests)")
    cache[response.path] = response
    let request = requests
    handlers.append { status in response.status = status + request }
    // Waits until the task has suspended, not just parked: until then its running thread still
    // holds the continuation, and a capture would find the canary through it.
    let task = Task { await withCheckedContinuation { GrowingServer.shared.parked.park($0) } }
    await eventually { hasSuspended(task) }
  }
}

/// The twin of `GrowingServer` that keeps nothing per request: a bounded cache, a handler
/// removed when the request ends, a task that ends, and a formatter made once on first use.
final class SteadyServer: @unchecked Sendable {
  static let shared = SteadyServer()
  private var cache = BoundedCache(capacity: 3)
  private var handlers: [(Int) -> Void] = []
  private lazy var formatter = LazySingleton()
  private var requests = 0

  @inline(never) func handle() async {
    requests += 1
    let response = FeedResponse(path: "/feed/\(requests)")
    cache.insert(GrowthItem())
    let request = requests
    handlers.append { status in response.status = status + request }
    handlers.removeLast()
    await Task { response.status += formatter.items.count }.value
  }
}

/// What a task that ``startNeverEndingTask()`` starts keeps.
final class GrowthWorker: @unchecked Sendable {
  var finished = false
  func finish() { finished = true }
}

/// What a handler that ``registerListener()`` appends captures.
final class GrowthListener: @unchecked Sendable {
  var heard = 0
  func hear() { heard += 1 }
}

/// Handlers appended per call, each capturing a new listener.
final class ListenerRegistry: @unchecked Sendable {
  var handlers: [() -> Void] = []
}

let listenerRegistry = ListenerRegistry()

/// Appends a handler that captures a new listener (and a count, so that the closure has a
/// context of its own): one listener and one closure per call.
@inline(never) func registerListener() {
  let listener = GrowthListener()
  let calls = listenerRegistry.handlers.count
  listenerRegistry.handlers.append { listener.heard += calls }
}

/// The lines of `registerListener()` that make the listener and the closure (debug builds).

/// The lines of `startNeverEndingTask()` that make the worker and the task, and of
/// `registerListener()` that make the listener and the closure (debug builds).
let neverEndingTaskLines = (worker: 96, task: 97)
let registerListenerLines = (listener: 188, closure: 190)
