import CPrefetch

/// The strongly connected components of an ``ObjectGraph``'s strong edges that can hold a
/// cycle: those with more than one node, or one node that references itself.
///
/// Computed with Tarjan's algorithm (R. E. Tarjan, "Depth-first search and linear graph
/// algorithms", SIAM J. Comput. 1(2), 1972), written iteratively so that a chain of a million
/// objects needs no deep call stack.
struct StronglyConnectedComponents {
  /// Each component's nodes in ascending order; components ordered by their smallest node.
  let components: [[Int32]]
  /// The work done, in steps: nodes discovered and edges followed (``AnalysisWork``).
  let steps: Int

  /// - Parameter startNodes: search only what is reachable from these; `nil` for every node.
  /// - Complexity: O(*n* + *e*).
  init(graph: ObjectGraph, startNodes: [Int]? = nil) {
    var found: [[Int32]] = []
    var steps = 0
    graph.strongOffsets.withUnsafeBufferPointer { offsets in
      graph.strongTargets.withUnsafeBufferPointer { targets in
        var search = Search(offsets: offsets, targets: targets, nodeCount: graph.objectCount)
        defer { search.release() }
        if let startNodes {
          for node in startNodes { search.visit(node, into: &found) }
        } else {
          for node in 0..<graph.objectCount { search.visit(node, into: &found) }
        }
        steps = search.steps
      }
    }
    found.sort { $0[0] < $1[0] }
    components = found
    self.steps = steps
  }

  /// Tarjan's search state. Each node enters each stack at most once, so every stack is
  /// allocated once at the node count and indexed by a depth.
  private struct Search {
    let offsets: UnsafeBufferPointer<Int32>
    let targets: UnsafeBufferPointer<Int32>
    /// Discovery index of each discovered node.
    let order: UnsafeMutableBufferPointer<Int32>
    let lowLink: UnsafeMutableBufferPointer<Int32>
    /// Whether each node was discovered, and whether its component was found; a discovered node
    /// whose component is not found is on Tarjan's stack. Bits that stay in the caches: most
    /// edges lead to a node whose component is found, and cost no read of ``order``.
    let isDiscovered: NodeBits
    let isDone: NodeBits
    /// Tarjan's stack of discovered nodes whose component is still open.
    let stack: UnsafeMutableBufferPointer<Int32>
    var stackDepth = 0
    /// The depth-first path: each node and the next of its edges to follow.
    let pathNode: UnsafeMutableBufferPointer<Int32>
    let pathEdge: UnsafeMutableBufferPointer<Int32>
    var pathDepth = 0
    var nextOrder: Int32 = 0
    /// Nodes discovered and edges followed so far.
    var steps = 0

    init(offsets: UnsafeBufferPointer<Int32>, targets: UnsafeBufferPointer<Int32>, nodeCount: Int) {
      self.offsets = offsets
      self.targets = targets
      order = .allocate(capacity: nodeCount)
      lowLink = .allocate(capacity: nodeCount)
      isDiscovered = NodeBits(count: nodeCount)
      isDone = NodeBits(count: nodeCount)
      stack = .allocate(capacity: nodeCount)
      pathNode = .allocate(capacity: nodeCount)
      pathEdge = .allocate(capacity: nodeCount)
    }

    func release() {
      for buffer in [order, lowLink, stack, pathNode, pathEdge] { buffer.deallocate() }
      isDiscovered.release()
      isDone.release()
    }

    private mutating func discover(_ node: Int) {
      isDiscovered.set(node)
      order[node] = nextOrder
      lowLink[node] = nextOrder
      nextOrder += 1
      stack[stackDepth] = Int32(node)
      stackDepth += 1
      pathNode[pathDepth] = Int32(node)
      pathEdge[pathDepth] = offsets[node]
      pathDepth += 1
      // Its targets' rows are read as the search reaches them: asked for now, their misses
      // overlap (the first target's comes next, the others' once the search is back).
      for edge in Int(offsets[node])..<Int(offsets[node + 1]) { cprefetch_for_reading(offsets.baseAddress! + Int(targets[edge])) }
    }

    /// Finds the components reachable from `root` not found before, appending those that can
    /// hold a cycle to `found`.
    mutating func visit(_ root: Int, into found: inout [[Int32]]) {
      guard !isDiscovered[root] else { return }
      discover(root)
      while pathDepth > 0 {
        let current = Int(pathNode[pathDepth - 1])
        let edge = pathEdge[pathDepth - 1]
        steps += 1
        if edge < offsets[current + 1] {
          pathEdge[pathDepth - 1] = edge + 1
          let next = Int(targets[Int(edge)])
          if !isDiscovered[next] {
            discover(next)
          } else if !isDone[next] {
            lowLink[current] = min(lowLink[current], order[next])
          }
          continue
        }
        pathDepth -= 1
        if pathDepth > 0 {
          let parent = Int(pathNode[pathDepth - 1])
          lowLink[parent] = min(lowLink[parent], lowLink[current])
        }
        guard lowLink[current] == order[current] else { continue }
        var bottom = stackDepth - 1
        while stack[bottom] != Int32(current) { bottom -= 1 }
        let size = stackDepth - bottom
        if size > 1 || hasSelfLoop(current) {
          found.append(stack[bottom..<stackDepth].sorted())
        }
        for member in stack[bottom..<stackDepth] { isDone.set(Int(member)) }
        stackDepth = bottom
      }
    }

    private func hasSelfLoop(_ node: Int) -> Bool {
      targets[Int(offsets[node])..<Int(offsets[node + 1])].contains(Int32(node))
    }
  }
}
