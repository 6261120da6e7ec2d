// What one live capture costs: `AllocationTracker.snapshot()` of OBJECTS tracked objects (chains
// of nodes with closures and arrays) while THREADS other threads keep their cores busy, and a cycle
// search from one object without references in the same process (the fixed cost of a capture:
// for a forked capture, the fork, the pipe and the wait). Prints the medians of REPEATS captures. It uses only API that the in-process capture also had, so
// `Benchmarks/capture-overhead.sh` can build it against an older revision and compare.
import Foundation
import LeakDetector

final class Node {
  var next: Node?
  var items: [Node] = []
  var handler: (() -> Void)?
}

let arguments = CommandLine.arguments.dropFirst().map { Int($0) ?? 0 }
let (objects, threads, repeats) = (arguments.first ?? 100_000, arguments.dropFirst().first ?? 8, arguments.dropFirst(2).first ?? 5)
AllocationTracker.start(.init(capturesStacks: true))
var chains: [Node] = []
for index in 0..<objects {
  let node = Node()
  if index % 100 != 0, let previous = chains.last {
    node.next = previous
    chains[chains.count - 1] = node
  } else {
    chains.append(node)
  }
  node.handler = { [weak node] in _ = node?.items.count }
}
final class Flag: @unchecked Sendable { var stop = false }
let flag = Flag()
for _ in 0..<threads {
  Thread.detachNewThread {
    var x: UInt64 = 1
    while !flag.stop { for _ in 0..<10_000 { x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407 } }
    if x == 42 { print(x) }
  }
}
var times: [Double] = []
var count = 0
for _ in 0..<repeats {
  let start = Date()
  count = AllocationTracker.snapshot().objectCount
  times.append(Date().timeIntervalSince(start))
}
let lone = Node()
var smallTimes: [Double] = []
for _ in 0..<max(repeats, 20) {
  let start = Date()
  _ = RetainCycleDetector.cycles(from: lone)
  smallTimes.append(Date().timeIntervalSince(start))
}
flag.stop = true
times.sort()
smallTimes.sort()
print(
  "capture of \(count) objects with \(threads) busy threads: median \(String(format: "%.3f", times[times.count / 2])) s over \(repeats);"
    + " capture of 1 object: median \(String(format: "%.1f", smallTimes[smallTimes.count / 2] * 1000)) ms over \(smallTimes.count)")
