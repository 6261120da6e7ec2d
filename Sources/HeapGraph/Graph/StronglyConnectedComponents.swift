/// The strongly connected components of an ``ObjectGraph``'s strong edges that can hold a
/// cycle: those with more than one node, or one node that references itself.
///
/// Computed with Tarjan's algorithm (R. E. Tarjan, "Depth-first search and linear graph
/// algorithms", SIAM J. Comput. 1(2), 1972), written iteratively so that a chain of a million
/// objects needs no deep call stack.
struct StronglyConnectedComponents {
  /// Each component's nodes in ascending order; components ordered by their smallest node.
  let components: [[Int32]]

  /// - Parameter startNodes: search only what is reachable from these; `nil` for every node.
  /// - Complexity: O(*n* + *e*).
  init(graph: ObjectGraph, startNodes: [Int]? = nil) {
    let count = graph.objectCount
    var order = [Int32](repeating: -1, count: count)  // discovery index, -1: unvisited
    var lowLink = [Int32](repeating: 0, count: count)
    var isOnStack = [Bool](repeating: false, count: count)
    var stack: [Int32] = []
    var callStack: [(node: Int32, edge: Int32)] = []
    var nextOrder: Int32 = 0
    var found: [[Int32]] = []

    graph.strongOffsets.withUnsafeBufferPointer { offsets in
      graph.strongTargets.withUnsafeBufferPointer { targets in
        func discover(_ node: Int) {
          order[node] = nextOrder
          lowLink[node] = nextOrder
          nextOrder += 1
          stack.append(Int32(node))
          isOnStack[node] = true
          callStack.append((Int32(node), offsets[node]))
        }
        func visit(_ root: Int) {
          guard order[root] < 0 else { return }
          discover(root)
          while let (node, edge) = callStack.last {
            let current = Int(node)
            if edge < offsets[current + 1] {
              callStack[callStack.count - 1].edge = edge + 1
              let next = Int(targets[Int(edge)])
              if order[next] < 0 {
                discover(next)
              } else if isOnStack[next] {
                lowLink[current] = min(lowLink[current], order[next])
              }
              continue
            }
            callStack.removeLast()
            if let parent = callStack.last {
              lowLink[Int(parent.node)] = min(lowLink[Int(parent.node)], lowLink[current])
            }
            guard lowLink[current] == order[current] else { continue }
            var members: [Int32] = []
            while true {
              let member = stack.removeLast()
              isOnStack[Int(member)] = false
              members.append(member)
              if member == node { break }
            }
            if members.count > 1 || Self.hasSelfLoop(current, offsets: offsets, targets: targets) {
              members.sort()
              found.append(members)
            }
          }
        }
        if let startNodes {
          for node in startNodes { visit(node) }
        } else {
          for node in 0..<count { visit(node) }
        }
      }
    }
    found.sort { $0[0] < $1[0] }
    components = found
  }

  private static func hasSelfLoop(_ node: Int, offsets: UnsafeBufferPointer<Int32>, targets: UnsafeBufferPointer<Int32>) -> Bool {
    for edge in Int(offsets[node])..<Int(offsets[node + 1]) where targets[edge] == Int32(node) {
      return true
    }
    return false
  }
}
