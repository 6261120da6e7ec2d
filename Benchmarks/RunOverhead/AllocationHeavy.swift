// An allocation-heavy program for `Benchmarks/run-overhead.sh`: the binary-trees benchmark
// (many short-lived class instances), with a long-lived tree kept to the end. With an argument
// `live N`, it instead keeps N objects alive in small trees and exits: the size of the exit
// capture; with `tasks N`, it makes N tasks that do nothing. In every mode nothing leaks.
final class Node {
  var left: Node?
  var right: Node?
  init(left: Node?, right: Node?) {
    self.left = left
    self.right = right
  }
}

@inline(never) func tree(_ depth: Int) -> Node {
  depth == 0 ? Node(left: nil, right: nil) : Node(left: tree(depth - 1), right: tree(depth - 1))
}

@inline(never) func check(_ node: Node) -> Int {
  1 + (node.left.map(check) ?? 0) + (node.right.map(check) ?? 0)
}

/// What the `live` mode keeps alive until exit (a global: a local of the `if` below would be
/// freed before the program exits).
var kept: [Node] = []

/// Makes `count` tasks that do nothing, 1,000 at a time, each batch awaited: what making a task
/// costs (`swift_task_create`, which `run` interposes to remember each task).
func makeTasks(_ count: Int) async -> Int {
  var made = 0
  while made < count {
    let batch = (0..<min(1_000, count - made)).map { index in Task { index } }
    for task in batch { made += await task.value >= 0 ? 1 : 0 }
  }
  return made
}

let arguments = CommandLine.arguments.dropFirst()
if arguments.first == "tasks", let count = arguments.dropFirst().first.flatMap(Int.init) {
  print(await makeTasks(count))
} else if arguments.first == "live", let count = arguments.dropFirst().first.flatMap(Int.init) {
  kept.reserveCapacity(count / 4)
  for _ in 0..<(count / 4) {
    kept.append(Node(left: Node(left: nil, right: nil), right: Node(left: Node(left: nil, right: nil), right: nil)))
  }
  print(kept.count * 4)
} else {
  let maxDepth = Int(arguments.first ?? "") ?? 16
  let longLived = tree(maxDepth)
  var total = 0
  for depth in stride(from: 4, through: maxDepth, by: 2) {
    let iterations = 1 << (maxDepth - depth + 4)
    for _ in 0..<iterations { total += check(tree(depth)) }
  }
  print(total, check(longLived))
}
