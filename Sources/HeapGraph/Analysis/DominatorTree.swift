/// The dominator tree of an ``ObjectGraph``'s strong edges, from a virtual root that holds the
/// snapshot's roots and the entry objects of unreachable (leaked) parts, and the retained size of
/// every object: its own size plus the sizes of everything it dominates (what would be freed if
/// it were).
///
/// Computed with the Semi-NCA algorithm over the preorder of an iterative depth-first search
/// (see `immediateDominators`), with predecessors stored as compressed rows by preorder number.
///
/// - Complexity: O((*n* + *e*) log *n*), near-linear on heaps.
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
          let preorder = Self.preorder(successors)
          defer { preorder.release() }
          let dominator = Self.immediateDominators(preorder, successors)
          defer { dominator.deallocate() }
          // Retained sizes: children before parents (a dominator precedes what it dominates in
          // preorder, so reverse preorder), in node order at the end.
          retainedSize.withUnsafeMutableBufferPointer { size in
            retainedCount.withUnsafeMutableBufferPointer { objects in
              for number in stride(from: preorder.reachedCount - 1, through: 0, by: -1) {
                let node = Int(preorder.node[number])
                if node != virtualRoot {
                  size[node].addSaturating(max(graph.sizes[node], 0))
                  if !graph.isClosureValue(node) { objects[node] += 1 }
                }
                let parent = Int(dominator[number])
                guard parent != number else { continue }
                let parentNode = Int(preorder.node[parent])
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

  /// The nodes reached from the virtual root, numbered in depth-first preorder (the virtual
  /// root is 0), with each one's parent in the depth-first tree.
  private struct Preorder {
    /// Node of each number, for `0..<reachedCount`.
    let node: UnsafeMutableBufferPointer<Int32>
    /// Number of each node; -1 for a node not reached.
    let number: UnsafeMutableBufferPointer<Int32>
    /// Number of each number's parent in the depth-first tree (the root's is 0).
    let parent: UnsafeMutableBufferPointer<Int32>
    let reachedCount: Int

    func release() {
      node.deallocate()
      number.deallocate()
      parent.deallocate()
    }
  }

  private static func preorder(_ successors: Successors) -> Preorder {
    let nodeCount = successors.nodeCount
    let node = UnsafeMutableBufferPointer<Int32>.allocate(capacity: nodeCount)
    let number = UnsafeMutableBufferPointer<Int32>.allocate(capacity: nodeCount)
    let parent = UnsafeMutableBufferPointer<Int32>.allocate(capacity: nodeCount)
    number.initialize(repeating: -1)
    // The depth-first path, as numbers, with the next successor position of each. Each node is
    // on it at most once, so it never outgrows the node count.
    let pathNumber = UnsafeMutableBufferPointer<Int32>.allocate(capacity: nodeCount)
    let pathPosition = UnsafeMutableBufferPointer<Int>.allocate(capacity: nodeCount)
    defer {
      pathNumber.deallocate()
      pathPosition.deallocate()
    }
    var reached = 0
    func discover(_ discovered: Int, from parentNumber: Int32, depth: Int) {
      number[discovered] = Int32(reached)
      node[reached] = Int32(discovered)
      parent[reached] = parentNumber
      pathNumber[depth] = Int32(reached)
      pathPosition[depth] = successors.positions(of: discovered).lowerBound
      reached += 1
    }
    discover(successors.virtualRoot, from: 0, depth: 0)
    var depth = 1
    while depth > 0 {
      let current = Int(node[Int(pathNumber[depth - 1])])
      let position = pathPosition[depth - 1]
      guard position < successors.positions(of: current).upperBound else {
        depth -= 1
        continue
      }
      pathPosition[depth - 1] = position + 1
      let next = successors.successor(of: current, at: position)
      if number[next] < 0 {
        discover(next, from: pathNumber[depth - 1], depth: depth)
        depth += 1
      }
    }
    return Preorder(node: node, number: number, parent: parent, reachedCount: reached)
  }

  /// The immediate dominator of each preorder number, as a number (the root's is itself), by
  /// the Semi-NCA algorithm: semidominators as Lengauer and Tarjan compute them (with path
  /// compression), then each immediate dominator as the nearest common ancestor of the
  /// semidominator and the depth-first parent (Georgiadis, "Linear-Time Algorithms for
  /// Dominators and Related Problems", 2005; the variant LLVM uses).
  private static func immediateDominators(_ preorder: Preorder, _ successors: Successors) -> UnsafeMutableBufferPointer<Int32> {
    let reached = preorder.reachedCount
    let dominator = UnsafeMutableBufferPointer<Int32>.allocate(capacity: reached)
    _ = dominator.initialize(from: preorder.parent[0..<reached])
    if reached > 1 {
      let predecessors = Predecessors(preorder, successors)
      defer { predecessors.release() }
      let semi = semidominators(preorder, predecessors)
      defer { semi.deallocate() }
      // The nearest common ancestor of the semidominator and the parent: the parent's immediate
      // dominator chain (numbers below this one, already final) followed down to the semidominator.
      for number in 1..<reached {
        var candidate = dominator[number]
        while candidate > semi[number] { candidate = dominator[Int(candidate)] }
        dominator[number] = candidate
      }
    }
    dominator[0] = 0
    return dominator
  }

  /// The predecessors of each preorder number (reached sources only), as compressed rows.
  private struct Predecessors {
    /// Where each number's predecessors start in ``numbers``; one more entry than numbers.
    let start: UnsafeMutableBufferPointer<Int32>
    let numbers: UnsafeMutableBufferPointer<Int32>

    init(_ preorder: Preorder, _ successors: Successors) {
      let reached = preorder.reachedCount
      let start = UnsafeMutableBufferPointer<Int32>.allocate(capacity: reached + 1)
      start.initialize(repeating: 0)
      for source in 0..<reached {
        let sourceNode = Int(preorder.node[source])
        for position in successors.positions(of: sourceNode) {
          let target = Int(preorder.number[successors.successor(of: sourceNode, at: position)])
          start[target + 1] += 1
        }
      }
      for index in 0..<reached { start[index + 1] += start[index] }
      let numbers = UnsafeMutableBufferPointer<Int32>.allocate(capacity: Int(start[reached]))
      let fill = UnsafeMutableBufferPointer<Int32>.allocate(capacity: reached)
      defer { fill.deallocate() }
      _ = fill.initialize(from: start[0..<reached])
      for source in 0..<reached {
        let sourceNode = Int(preorder.node[source])
        for position in successors.positions(of: sourceNode) {
          let target = Int(preorder.number[successors.successor(of: sourceNode, at: position)])
          numbers[Int(fill[target])] = Int32(source)
          fill[target] += 1
        }
      }
      self.start = start
      self.numbers = numbers
    }

    func release() {
      start.deallocate()
      numbers.deallocate()
    }
  }

  /// The semidominator of each preorder number, as a number (Lengauer and Tarjan: numbers in
  /// reverse preorder, each linked into a forest searched with path compression); the caller
  /// deallocates it.
  private static func semidominators(_ preorder: Preorder, _ predecessors: Predecessors) -> UnsafeMutableBufferPointer<Int32> {
    let reached = preorder.reachedCount
    let semi = UnsafeMutableBufferPointer<Int32>.allocate(capacity: reached)
    let label = UnsafeMutableBufferPointer<Int32>.allocate(capacity: reached)
    // The forest of processed numbers, compressed as it is searched; starts as the parents.
    let ancestor = UnsafeMutableBufferPointer<Int32>.allocate(capacity: reached)
    _ = ancestor.initialize(from: preorder.parent[0..<reached])
    let pending = UnsafeMutableBufferPointer<Int32>.allocate(capacity: reached)
    defer {
      for buffer in [label, ancestor, pending] { buffer.deallocate() }
    }
    for number in 0..<reached {
      semi[number] = Int32(number)
      label[number] = Int32(number)
    }
    // The number of smallest semidominator on the forest path above `start`, once numbers from
    // `firstLinked` on are processed.
    func evaluate(_ start: Int32, firstLinked: Int32) -> Int32 {
      guard ancestor[Int(start)] >= firstLinked else { return label[Int(start)] }
      var depth = 0
      var current = start
      repeat {
        pending[depth] = current
        depth += 1
        current = ancestor[Int(current)]
      } while ancestor[Int(current)] >= firstLinked
      var above = current
      var aboveLabel = label[Int(above)]
      repeat {
        depth -= 1
        current = pending[depth]
        ancestor[Int(current)] = ancestor[Int(above)]
        if semi[Int(aboveLabel)] < semi[Int(label[Int(current)])] {
          label[Int(current)] = aboveLabel
        } else {
          aboveLabel = label[Int(current)]
        }
        above = current
      } while depth > 0
      return label[Int(current)]
    }
    for number in stride(from: reached - 1, through: 1, by: -1) {
      var best = preorder.parent[number]
      for predecessor in predecessors.numbers[Int(predecessors.start[number])..<Int(predecessors.start[number + 1])] {
        let candidate = semi[Int(evaluate(predecessor, firstLinked: Int32(number + 1)))]
        if candidate < best { best = candidate }
      }
      semi[number] = best
    }
    return semi
  }
}
