// A soak of live capture while threads mutate: mutator threads keep building and dropping small
// object graphs with every field shape the reflection reads (closures with captured vars, arrays,
// dictionaries, sets, tuples, existentials, enums with class and Error payloads, indirect enums,
// weak back references) and the owners the runtime hides (a sleeping task, a dispatch timer's or
// read source's handler, a work item, a timer on the main run loop, a notification observer's
// block, each capturing a node), while the main
// thread captures all the time: tracker snapshots, cycle
// searches from the threads' holders, and the leak checks' capture. Afterwards every object
// created must have been destroyed, exactly (exit 3 otherwise): a capture that freed an object
// early or kept one alive would show. Run it with `Scripts/soak [SECONDS]`.
import Foundation
import HeapGraph
@_spi(Internals) import LeakDetector
import Synchronization

let created = Atomic<Int>(0)
let destroyed = Atomic<Int>(0)
struct Failure: Error { let node: Node }
struct Key: Hashable {
  let id: Int
  let node: Node
  static func == (a: Key, b: Key) -> Bool { a.id == b.id }
  func hash(into hasher: inout Hasher) { hasher.combine(id) }
}
protocol Payload: AnyObject {}
enum State {
  case idle
  case loaded(Node)
  case failed(Error)
  case pair(Node, Int)
}
indirect enum Chain {
  case link(Node, Chain)
  case end
}
final class Node: Payload {
  var next: Node?
  weak var parent: Node?
  var handler: (() -> Void)?
  var items: [Node] = []
  var table: [String: Node] = [:]
  var keys: Set<Key> = []
  var state: State = .idle
  var chain: Chain = .end
  var any: Any?
  var payload: Payload?
  var tuple: (Node?, Int) = (nil, 0)
  var task: Task<Void, Never>?
  var work: DispatchWorkItem?
  var source: DispatchSourceTimer?
  var reader: DispatchSourceRead?
  var token: NSObjectProtocol?
  var timer: Timer?
  init() { created.add(1, ordering: .relaxed) }
  deinit {
    source?.cancel()
    reader?.cancel()
    timer?.invalidate()
    if let token { NotificationCenter.default.removeObserver(token) }
    destroyed.add(1, ordering: .relaxed)
  }
}
let soakNotification = Notification.Name("CaptureSoak")
/// The read end of a pipe nobody writes to: the read sources' descriptor.
let silentPipe: Int32 = {
  var ends: [Int32] = [0, 0]
  precondition(pipe(&ends) == 0)
  return ends[0]
}()

/// Gives `a` one of the owners the runtime hides, holding `c`: none of them holds `a`, and each
/// lets go of `c` when `a` goes or soon after (the task ends, waiting tasks are resumed, the
/// source is cancelled, the observer removed, the timer invalidated).
func addHiddenOwner(to a: Node, holding c: Node, variant: Int) {
  switch variant % 5 {
  case 0:
    a.task = Task { [c] in
      try? await Task.sleep(for: .milliseconds(2))
      _ = c.items.count
    }
  case 1:
    let work = DispatchWorkItem { [c] in _ = c.items.count }
    a.work = work
    if variant % 8 == 1 { DispatchQueue.global().async(execute: work) }
  case 2 where variant % 10 == 7:
    // Registered in libdispatch's epoll lists until cancelled: they change while captures read them.
    let reader = DispatchSource.makeReadSource(fileDescriptor: silentPipe, queue: .global())
    reader.setEventHandler { [c] in _ = c.items.count }
    reader.resume()
    a.reader = reader
  case 2:
    let source = DispatchSource.makeTimerSource(queue: .global())
    source.setEventHandler { [c] in _ = c.items.count }
    source.schedule(deadline: .now() + .milliseconds(1))
    source.resume()
    a.source = source
  case 3 where variant % 20 == 3:
    // Scheduled on the main run loop from this thread; weak, because corelibs never releases a
    // block timer (nor its block), so a strong capture would keep `c` for good. Rarer than the
    // others: every timer stays allocated, and tracker snapshots grow with them.
    let timer = Timer(timeInterval: 3600, repeats: false) { [weak c] _ in _ = c?.items.count }
    RunLoop.main.add(timer, forMode: .default)
    a.timer = timer
  case 4 where variant % 9 == 4:
    // Suspends and resumes while captures read it: a task waiting on a stream that another task
    // feeds, then finishes.
    let (stream, continuation) = AsyncStream<Int>.makeStream()
    a.task = Task { [c] in for await _ in stream { _ = c.items.count } }
    Task {
      for value in 0..<3 {
        continuation.yield(value)
        await Task.yield()
      }
      continuation.finish()
    }
  case 4 where variant % 9 == 8:
    // Waits on a checked continuation that a block resumes a millisecond later.
    a.task = Task { [c] in
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(1)) { continuation.resume() }
      }
      _ = c.items.count
    }
  default:
    a.token = NotificationCenter.default.addObserver(forName: soakNotification, object: nil, queue: nil) { [c] _ in _ = c.items.count }
  }
}
final class Holder: @unchecked Sendable { var nodes: [Node] = [] }

let arguments = CommandLine.arguments.dropFirst()
let seconds = Double(arguments.first ?? "20") ?? 20
let threads = Int(arguments.dropFirst().first ?? "6") ?? 6
// A third argument samples: one allocation per that many bytes is tracked, the rest are not.
let sampleInterval = Int(arguments.dropFirst(2).first ?? "0") ?? 0
let holders = (0..<threads).map { _ in Holder() }
let stop = Atomic<Bool>(false)
AllocationTracker.start(.init(capturesStacks: true, sampleInterval: sampleInterval))
var workers: [Thread] = []
for t in 0..<threads {
  let holder = holders[t]
  let thread = Thread {
    var i = 0
    while !stop.load(ordering: .relaxed) {
      // Strong references only go from a to b to c to leaves, so everything dies when dropped.
      let a = Node()
      let b = Node()
      let c = Node()
      a.next = b
      b.parent = a
      a.items = [b, c]
      a.table["key number \(i % 5) of a long name"] = c
      a.state = i % 3 == 0 ? .pair(b, i) : .loaded(c)
      c.state = i % 3 == 0 ? .loaded(Node()) : (i % 3 == 1 ? .failed(Failure(node: Node())) : .idle)
      var count = 0
      a.handler = { [weak a] in
        count += 1
        _ = a?.items.count
      }
      b.keys = [Key(id: i, node: c)]
      b.chain = .link(c, .link(Node(), .end))
      b.tuple = (c, i)
      c.any = i % 2 == 0 ? Node() : "text \(i)"
      c.payload = Node()
      addHiddenOwner(to: a, holding: c, variant: i)
      if holder.nodes.count > 50 { holder.nodes.removeFirst(10) }
      holder.nodes.append(a)
      if i % 7 == 0, let first = holder.nodes.first {
        first.state = .loaded(c)
        first.items.append(b)
      }
      if i % 11 == 0, let last = holder.nodes.last {
        last.items.removeAll()
        last.table.removeAll()
        last.chain = .end
      }
      i += 1
    }
  }
  thread.start()
  workers.append(thread)
}
let start = Date()
var captures = 0
var objectsSeen = 0
var failedAttempts = 0
var failures: [String: Int] = [:]
func note(_ diagnostics: [CaptureDiagnostic]) {
  for diagnostic in diagnostics where diagnostic.kind == .captureFailed {
    failedAttempts += 1
    failures[diagnostic.message, default: 0] += 1
  }
}
while Date().timeIntervalSince(start) < seconds {
  let snapshot = AllocationTracker.snapshot()
  objectsSeen += snapshot.objectCount
  note(snapshot.metadata.diagnosticRecords)
  _ = ObjectGraph(snapshot)
  for holder in holders {
    let detector = RetainCycleDetector()
    detector.addCandidate(holder)
    _ = detector.findRetainCycles()
    note(detector.lastSnapshot?.metadata.diagnosticRecords ?? [])
  }
  let heap = AllocationTracker.leakCheckCapture(including: holders, scanningGlobalData: false)
  note(heap.snapshot.metadata.diagnosticRecords)
  NotificationCenter.default.post(name: soakNotification, object: nil)
  captures += 2 + holders.count
}
stop.store(true, ordering: .relaxed)
// Waits until the threads have left their loops; then releases what they hold, and waits until
// every object made is destroyed (cancelled sources release their handlers on their queue, tasks
// end) or ten seconds pass, when what is left is the soak's finding.
while workers.contains(where: { !$0.isFinished }) { Thread.sleep(forTimeInterval: 0.01) }
for holder in holders { holder.nodes.removeAll() }
let settledBy = ContinuousClock.now + .seconds(10)
while created.load(ordering: .relaxed) != destroyed.load(ordering: .relaxed) && ContinuousClock.now < settledBy {
  Thread.sleep(forTimeInterval: 0.01)
}
AllocationTracker.stop()
let c = created.load(ordering: .relaxed)
let d = destroyed.load(ordering: .relaxed)
print(
  "soak: \(threads) threads\(sampleInterval > 0 ? ", sampled every \(sampleInterval) bytes" : ""), \(captures) captures in \(Int(seconds)) s (\(objectsSeen) objects in tracker snapshots), "
    + "\(failedAttempts) capture attempts failed and were retried; created \(c), destroyed \(d), live \(c - d)")
for (failure, count) in failures.sorted(by: { $0.value > $1.value }) { print("  \(count)× \(failure)") }
exit(c == d ? 0 : 3)
