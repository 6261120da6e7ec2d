/// Breadth-first search from a graph's roots over strong references: for every object a root
/// reaches, the previous object and the edge of one shortest path from a root (Shark's and
/// LeakCanary's "shortest path to GC roots").
///
/// ```swift
/// let tree = ShortestPathTree(graph: graph)
/// tree.isReached(node)  // false: no root reaches it, so it leaked
/// ```
struct ShortestPathTree {
  /// The previous object on the path: -1 for a root, -2 for an object no root reaches.
  let parent: [Int32]
  /// The strong edge (an index into the graph's edges) from `parent`, or -1.
  let parentEdge: [Int32]
  /// The reached objects, roots first, each after its parent.
  let order: [Int32]

  /// - Complexity: O(*n* + *e*).
  init(graph: ObjectGraph) {
    var parent = [Int32](repeating: -2, count: graph.objectCount)
    var parentEdge = [Int32](repeating: -1, count: graph.objectCount)
    var queue: [Int32] = []
    for root in graph.roots where parent[root.node] == -2 {
      parent[root.node] = -1
      queue.append(Int32(root.node))
    }
    var head = 0
    while head < queue.count {
      let node = Int(queue[head])
      head += 1
      for edge in Int(graph.strongOffsets[node])..<Int(graph.strongOffsets[node + 1]) {
        let target = Int(graph.strongTargets[edge])
        guard parent[target] == -2 else { continue }
        parent[target] = Int32(node)
        parentEdge[target] = Int32(edge)
        queue.append(Int32(target))
      }
    }
    self.parent = parent
    self.parentEdge = parentEdge
    order = queue
  }

  /// Whether a root reaches `node`.
  func isReached(_ node: Int) -> Bool { parent[node] != -2 }
}
