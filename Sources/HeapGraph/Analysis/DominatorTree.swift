/// The dominator tree of an ``ObjectGraph``'s strong edges, from a virtual root that holds the
/// snapshot's roots and the entry objects of unreachable (leaked) parts, and the retained size of
/// every object: its own size plus the sizes of everything it dominates (what would be freed if
/// it were).
///
/// Computed with the iterative algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast Dominance
/// Algorithm", 2001). Nodes are renumbered in postorder of an iterative depth-first search, so a
/// dominator always has a larger number than the nodes it dominates, the "intersect" step
/// compares numbers directly, and predecessors are stored as compressed rows by number.
///
/// - Complexity: O((*n* + *e*) · *d*) where *d*, the number of passes, is small for heaps.
package struct DominatorTree: Sendable {
  /// Retained size of each node, in bytes (objects without a size count 0; unreached nodes 0).
  package let retainedSize: [Int64]
  /// Objects dominated by each node, itself included (unreached nodes 0).
  package let retainedCount: [Int32]

  package init(graph: ObjectGraph, entries: [Int]) {
    let count = graph.objectCount
    let virtualRoot = count
    var retainedSize = [Int64](repeating: 0, count: count + 1)
    var retainedCount = [Int32](repeating: 0, count: count + 1)
    graph.strongOffsets.withUnsafeBufferPointer { offsets in
      graph.strongTargets.withUnsafeBufferPointer { targets in
        entries.withUnsafeBufferPointer { entries in
          // The virtual root's successors are `entries`; every other node's are its strong edges.
          let successors = Successors(offsets: offsets, targets: targets, entries: entries, virtualRoot: virtualRoot)
          let postorder = Self.postorder(successors)
          defer { postorder.release() }
          let dominator = Self.immediateDominators(postorder, successors)
          defer { dominator.deallocate() }
          // Retained sizes: children before parents (postorder), in node order at the end.
          retainedSize.withUnsafeMutableBufferPointer { size in
            retainedCount.withUnsafeMutableBufferPointer { objects in
              for number in 0..<postorder.reachedCount {
                let node = Int(postorder.node[number])
                if node != virtualRoot {
                  size[node].addSaturating(max(graph.sizes[node], 0))
                  if !graph.isClosureValue(node) { objects[node] += 1 }
                }
                let parent = Int(dominator[number])
                guard parent != number else { continue }
                let parentNode = Int(postorder.node[parent])
                size[parentNode].addSaturating(size[node])
                objects[parentNode] += objects[node]
              }
            }
          }
        }
      }
    }
    self.retainedSize = retainedSize
    self.retainedCount = retainedCount
  }

  /// A node's successors: the strong edges' targets, or the entries for the virtual root.
  private struct Successors {
    let offsets: UnsafeBufferPointer<Int32>
    let targets: UnsafeBufferPointer<Int32>
    let entries: UnsafeBufferPointer<Int>
    let virtualRoot: Int

    var nodeCount: Int { virtualRoot + 1 }

    /// Positions of `node`'s successors (indices into `targets`, or into `entries`).
    func positions(of node: Int) -> Range<Int> {
      node == virtualRoot ? 0..<entries.count : Int(offsets[node])..<Int(offsets[node + 1])
    }

    func successor(of node: Int, at position: Int) -> Int {
      node == virtualRoot ? entries[position] : Int(targets[position])
    }
  }

  /// The nodes reached from the virtual root, numbered in depth-first postorder.
  private struct Postorder {
    /// Node of each number, for `0..<reachedCount` (the virtual root is the last).
    let node: UnsafeMutableBufferPointer<Int32>
    /// Number of each node; -1 for a node not reached.
    let number: UnsafeMutableBufferPointer<Int32>
    let reachedCount: Int

    func release() {
      node.deallocate()
      number.deallocate()
    }
  }

  private static func postorder(_ successors: Successors) -> Postorder {
    let nodeCount = successors.nodeCount
    let node = UnsafeMutableBufferPointer<Int32>.allocate(capacity: nodeCount)
    let number = UnsafeMutableBufferPointer<Int32>.allocate(capacity: nodeCount)
    number.initialize(repeating: -1)  // -1: not seen, -2: on the search stack, ≥ 0: numbered
    // Each node is pushed at most once, so the stack never outgrows the node count.
    let stackNode = UnsafeMutableBufferPointer<Int32>.allocate(capacity: nodeCount)
    let stackPosition = UnsafeMutableBufferPointer<Int>.allocate(capacity: nodeCount)
    defer {
      stackNode.deallocate()
      stackPosition.deallocate()
    }
    var depth = 1
    stackNode[0] = Int32(successors.virtualRoot)
    stackPosition[0] = successors.positions(of: successors.virtualRoot).lowerBound
    number[successors.virtualRoot] = -2
    var reached = 0
    while depth > 0 {
      let current = Int(stackNode[depth - 1])
      let position = stackPosition[depth - 1]
      if position < successors.positions(of: current).upperBound {
        stackPosition[depth - 1] = position + 1
        let next = successors.successor(of: current, at: position)
        if number[next] == -1 {
          number[next] = -2
          stackNode[depth] = Int32(next)
          stackPosition[depth] = successors.positions(of: next).lowerBound
          depth += 1
        }
      } else {
        number[current] = Int32(reached)
        node[reached] = Int32(current)
        reached += 1
        depth -= 1
      }
    }
    return Postorder(node: node, number: number, reachedCount: reached)
  }

  /// The immediate dominator of each postorder number, as a number (the virtual root's is itself).
  private static func immediateDominators(_ postorder: Postorder, _ successors: Successors) -> UnsafeMutableBufferPointer<Int32> {
    let reached = postorder.reachedCount
    let root = reached - 1
    // Predecessors by number, as compressed rows (reached sources only).
    let predecessorStart = UnsafeMutableBufferPointer<Int32>.allocate(capacity: reached + 1)
    predecessorStart.initialize(repeating: 0)
    for source in 0..<reached {
      let sourceNode = Int(postorder.node[source])
      for position in successors.positions(of: sourceNode) {
        let target = Int(postorder.number[successors.successor(of: sourceNode, at: position)])
        predecessorStart[target + 1] += 1
      }
    }
    for index in 0..<reached { predecessorStart[index + 1] += predecessorStart[index] }
    let predecessors = UnsafeMutableBufferPointer<Int32>.allocate(capacity: Int(predecessorStart[reached]))
    let fill = UnsafeMutableBufferPointer<Int32>.allocate(capacity: reached)
    _ = fill.initialize(from: predecessorStart[0..<reached])
    for source in 0..<reached {
      let sourceNode = Int(postorder.node[source])
      for position in successors.positions(of: sourceNode) {
        let target = Int(postorder.number[successors.successor(of: sourceNode, at: position)])
        predecessors[Int(fill[target])] = Int32(source)
        fill[target] += 1
      }
    }
    fill.deallocate()
    defer {
      predecessorStart.deallocate()
      predecessors.deallocate()
    }

    let dominator = UnsafeMutableBufferPointer<Int32>.allocate(capacity: reached)
    dominator.initialize(repeating: -1)
    dominator[root] = Int32(root)
    func intersect(_ first: Int32, _ second: Int32) -> Int32 {
      var a = first
      var b = second
      while a != b {
        while a < b { a = dominator[Int(a)] }
        while b < a { b = dominator[Int(b)] }
      }
      return a
    }
    var changed = true
    while changed {
      changed = false
      for number in stride(from: root - 1, through: 0, by: -1) {  // reverse postorder
        var candidate: Int32 = -1
        for predecessor in predecessors[Int(predecessorStart[number])..<Int(predecessorStart[number + 1])]
        where dominator[Int(predecessor)] >= 0 {
          candidate = candidate < 0 ? predecessor : intersect(predecessor, candidate)
        }
        if candidate >= 0 && dominator[number] != candidate {
          dominator[number] = candidate
          changed = true
        }
      }
    }
    return dominator
  }
}
