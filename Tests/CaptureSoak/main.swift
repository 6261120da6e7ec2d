// A soak of live capture while threads mutate: 6 threads keep rebuilding small object graphs
// (closures, arrays, dictionaries, enums with class and Error payloads, weak back references)
// while the main thread captures tracker snapshots and searches cycles from the threads' holders.
// Afterwards every object created must have been destroyed (exit 3 otherwise). Run it with
// `Scripts/soak [SECONDS]`. Not part of CI yet: today's capture reads references that other
// threads release meanwhile, and crashes within seconds (the safe-capture work fixes that).
import Foundation
import LeakDetector
import Synchronization

let created = Atomic<Int>(0)
let destroyed = Atomic<Int>(0)
struct Failure: Error { let node: Node }
enum State { case idle, loaded(Node), failed(Error) }
final class Node {
  var next: Node?
  weak var parent: Node?
  var handler: (() -> Void)?
  var items: [Node] = []
  var table: [String: Node] = [:]
  var state: State = .idle
  init() { created.add(1, ordering: .relaxed) }
  deinit { destroyed.add(1, ordering: .relaxed) }
}
final class Holder: @unchecked Sendable { var nodes: [Node] = [] }

let seconds = Double(CommandLine.arguments.dropFirst().first ?? "20") ?? 20
let threads = 6
let holders = (0..<threads).map { _ in Holder() }
let stop = Atomic<Bool>(false)
AllocationTracker.start(.init(capturesStacks: true))
var workers: [Thread] = []
for t in 0..<threads {
  let holder = holders[t]
  let thread = Thread {
    var i = 0
    while !stop.load(ordering: .relaxed) {
      let a = Node(), b = Node(), c = Node()
      a.next = b; b.parent = a; a.items = [b, c]; a.table["c"] = c
      c.state = i % 3 == 0 ? .loaded(b) : (i % 3 == 1 ? .failed(Failure(node: Node())) : .idle)
      a.handler = { [weak a] in _ = a?.items.count }
      if holder.nodes.count > 50 { holder.nodes.removeFirst(10) }
      holder.nodes.append(a)
      if i % 7 == 0, let first = holder.nodes.first { first.state = .loaded(c); first.items.append(b) }
      i += 1
    }
  }
  thread.start()
  workers.append(thread)
}
let start = Date()
var captures = 0
while Date().timeIntervalSince(start) < seconds {
  _ = AllocationTracker.snapshot()
  for holder in holders { _ = RetainCycleDetector.cycles(from: holder) }
  captures += 1
}
stop.store(true, ordering: .relaxed)
Thread.sleep(forTimeInterval: 0.5)
for holder in holders { holder.nodes.removeAll() }
AllocationTracker.stop()
let c = created.load(ordering: .relaxed), d = destroyed.load(ordering: .relaxed)
print("soak: \(captures) captures in \(Int(seconds)) s; created \(c), destroyed \(d), live \(c - d)")
exit(c == d ? 0 : 3)
