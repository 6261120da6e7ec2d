/// Breadth-first search from a graph's roots (or other sources) over strong references: for
/// every object they reach, the previous object and the edge of one shortest path from a source
/// (Shark's and LeakCanary's "shortest path to GC roots").
///
/// ```swift
/// let tree = ShortestPathTree(graph: graph)
/// tree.isReached(node)  // false: no root reaches it, so it leaked
/// ```
struct ShortestPathTree {
  /// The previous object on the path: ``sourceParent`` for a source, ``unreachedParent`` for an
  /// object no source reaches.
  let parent: [Int32]
  /// The parent of a source, which no object precedes.
  static let sourceParent: Int32 = -1
  /// The parent of an object that no source reaches.
  static let unreachedParent: Int32 = -2
  /// The graph's strong edges (shared with it, not copied), to find the edge from a parent.
  private let strongOffsets: [Int32]
  private let strongTargets: [Int32]
  /// The reached objects, roots first, each after its parent.
  let order: [Int32]
  /// The work done, in steps: edges followed (``AnalysisWork``).
  let steps: Int

  /// The tree of the shortest paths from the graph's roots.
  ///
  /// - Complexity: O(*n* + *e*).
  init(graph: ObjectGraph) {
    self.init(graph: graph, sources: graph.roots.map(\.node))
  }

  /// The tree of the shortest paths from `sources` (each is a tree's root).
  ///
  /// - Complexity: O(*n* + *e*).
  init(graph: ObjectGraph, sources: [Int]) {
    var parent = [Int32](repeating: Self.unreachedParent, count: graph.objectCount)
    var queue: [Int32] = []
    for source in sources where parent[source] == Self.unreachedParent {
      parent[source] = Self.sourceParent
      queue.append(Int32(source))
    }
    var head = 0
    var steps = 0
    while head < queue.count {
      let node = Int(queue[head])
      head += 1
      steps += Int(graph.strongOffsets[node + 1] - graph.strongOffsets[node]) + 1
      for edge in Int(graph.strongOffsets[node])..<Int(graph.strongOffsets[node + 1]) {
        let target = Int(graph.strongTargets[edge])
        guard parent[target] == Self.unreachedParent else { continue }
        parent[target] = Int32(node)
        queue.append(Int32(target))
      }
    }
    self.parent = parent
    strongOffsets = graph.strongOffsets
    strongTargets = graph.strongTargets
    order = queue
    self.steps = steps
  }

  /// The strong edge (an index into the graph's edges) from the parent of `node` to it, or -1
  /// for a source or an object no source reaches. Parallel references are one edge in the graph,
  /// so the parent has one edge to `node`: found by binary search in the parent's row.
  ///
  /// - Complexity: O(log *d*) for a parent of *d* strong references.
  func parentEdge(of node: Int) -> Int {
    let parent = Int(parent[node])
    guard parent >= 0 else { return -1 }
    var low = Int(strongOffsets[parent])
    var high = Int(strongOffsets[parent + 1])
    while low < high {
      let middle = (low + high) / 2
      if strongTargets[middle] < Int32(node) { low = middle + 1 } else { high = middle }
    }
    return low
  }

  /// Whether a source reaches `node`.
  func isReached(_ node: Int) -> Bool { parent[node] != Self.unreachedParent }

  /// The nodes from a source to `node`, or `nil` when no source reaches it.
  func path(to node: Int) -> [Int]? {
    guard isReached(node) else { return nil }
    var chain = [node]
    while parent[chain[chain.count - 1]] != Self.sourceParent { chain.append(Int(parent[chain[chain.count - 1]])) }
    return chain.reversed()
  }
}
