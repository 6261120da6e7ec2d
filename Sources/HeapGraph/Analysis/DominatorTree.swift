import CPrefetch

/// The dominator tree of an ``ObjectGraph``'s strong edges, from a virtual root that holds the
/// snapshot's roots and the entry objects of unreachable (leaked) parts, and the retained size of
/// every object: its own size plus the sizes of everything it dominates (what would be freed if
/// it were).
///
/// Computed with Lengauer and Tarjan's algorithm (path compression, no balancing) over the
/// preorder of an iterative depth-first search (see `immediateDominators`), with predecessors
/// stored as compressed rows by preorder number.
///
/// - Complexity: O((*n* + *e*) log *n*) in the worst case, near-linear on heaps, whatever the
///   depth of the tree.
package struct DominatorTree: Sendable {
  /// Retained size of each node, in bytes (objects without a size count 0; unreached nodes 0).
  package let retainedSize: [Int64]
  /// Objects dominated by each node, itself included (unreached nodes 0).
  package let retainedCount: [Int32]
  /// The immediate dominator of each node: the object whose release would free it, or
  /// ``heldByEntries`` for an entry or a node that several entries' parts share, or
  /// ``unreached`` for a node the entries do not reach.
  package let immediateDominator: [Int32]
  /// ``immediateDominator`` of a node that no single object dominates (the virtual root's child).
  package static let heldByEntries: Int32 = -1
  /// ``immediateDominator`` of a node the entries do not reach.
  package static let unreached: Int32 = -2
  /// The work done, in steps: edges followed, forest links climbed and compressed, nodes
  /// visited. It grows with the graph as the algorithm's cost does, so that a test can tell
  /// linear growth from quadratic without timing anything.
  package let steps: Int

  package init(graph: ObjectGraph, entries: [Int]) {
    let count = graph.objectCount
    let virtualRoot = count
    // Allocated once the dominators are known and their scratch space is freed.
    var retainedSize: [Int64] = []
    var retainedCount: [Int32] = []
    var immediateDominator: [Int32] = []
    var steps = 0
    graph.strongOffsets.withUnsafeBufferPointer { offsets in
      graph.strongTargets.withUnsafeBufferPointer { targets in
        entries.withUnsafeBufferPointer { entries in
          // The virtual root's successors are `entries`; every other node's are its strong edges.
          let successors = Successors(offsets: offsets, targets: targets, entries: entries, virtualRoot: virtualRoot)
          let preorder = Self.preorder(successors, steps: &steps)
          defer { preorder.node.deallocate() }
          let dominator = Self.immediateDominators(preorder, successors, steps: &steps)
          defer { dominator.deallocate() }
          preorder.releaseScratch()
          // Retained sizes: children before parents (a dominator precedes what it dominates in
          // preorder, so reverse preorder), in node order at the end.
          retainedSize = [Int64](repeating: 0, count: count + 1)
          retainedCount = [Int32](repeating: 0, count: count + 1)
          immediateDominator = [Int32](repeating: Self.unreached, count: count)
          immediateDominator.withUnsafeMutableBufferPointer { parentOf in
            for number in 1..<max(preorder.reachedCount, 1) {
              let parent = Int(preorder.node[Int(dominator[number])])
              parentOf[Int(preorder.node[number])] = parent == virtualRoot ? Self.heldByEntries : Int32(parent)
            }
          }
          retainedSize.withUnsafeMutableBufferPointer { size in
            retainedCount.withUnsafeMutableBufferPointer { objects in
              let lookAhead = PrefetchDistance.inOrder
              for number in stride(from: preorder.reachedCount - 1, through: 0, by: -1) {
                // Numbers go down: the words of the node `lookAhead` numbers on are asked for now.
                if number >= lookAhead {
                  let ahead = Int(preorder.node[number - lookAhead])
                  cprefetch_for_writing(size.baseAddress! + ahead)
                  cprefetch_for_writing(objects.baseAddress! + ahead)
                }
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
          steps += preorder.reachedCount
        }
      }
    }
    self.retainedSize = retainedSize
    self.retainedCount = retainedCount
    self.immediateDominator = immediateDominator
    self.steps = steps
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
    /// Which nodes the search reached: the one question it asks of every edge, answered from a
    /// bit that stays in the caches (see ``NodeBits``).
    let isReached: NodeBits
    /// Two words per reached node (undefined for the others), read together: the node's
    /// number, then how many edges from reached nodes lead to it (counted once the search is
    /// done, see ``Predecessors``), which becomes the cursor where its row is filled. The
    /// dominator computation then takes the whole as scratch space (see `immediateDominators`).
    let state: UnsafeMutableBufferPointer<Int32>
    /// Number of each number's parent in the depth-first tree (the root's is 0). The dominator
    /// computation compresses it in place into its forest's links.
    let parent: UnsafeMutableBufferPointer<Int32>
    let reachedCount: Int

    /// Frees all but ``node``, once the dominators are known.
    func releaseScratch() {
      isReached.release()
      state.deallocate()
      parent.deallocate()
    }
  }

  private static func preorder(_ successors: Successors, steps: inout Int) -> Preorder {
    let nodeCount = successors.nodeCount
    let node = UnsafeMutableBufferPointer<Int32>.allocate(capacity: nodeCount)
    let isReached = NodeBits(count: nodeCount)
    let state = UnsafeMutableBufferPointer<Int32>.allocate(capacity: 2 * nodeCount)
    let parent = UnsafeMutableBufferPointer<Int32>.allocate(capacity: nodeCount)
    // The depth-first path, as numbers, with the next successor position of each. Each node is
    // on it at most once, so it never outgrows the node count.
    let pathNumber = UnsafeMutableBufferPointer<Int32>.allocate(capacity: nodeCount)
    let pathPosition = UnsafeMutableBufferPointer<Int32>.allocate(capacity: nodeCount)
    defer {
      pathNumber.deallocate()
      pathPosition.deallocate()
    }
    var reached = 0
    func discover(_ discovered: Int, from parentNumber: Int32, depth: Int) {
      isReached.set(discovered)
      state[2 &* discovered] = Int32(reached)
      state[2 &* discovered &+ 1] = 0
      node[reached] = Int32(discovered)
      parent[reached] = parentNumber
      pathNumber[depth] = Int32(reached)
      let positions = successors.positions(of: discovered)
      pathPosition[depth] = Int32(positions.lowerBound)
      reached += 1
      // Its successors' rows are read as the search reaches them: asked for now, their misses
      // overlap (the first successor's comes next, the others' once the search is back).
      for position in positions {
        cprefetch_for_reading(successors.offsets.baseAddress! + successors.successor(of: discovered, at: position))
      }
    }
    discover(successors.virtualRoot, from: 0, depth: 0)
    var depth = 1
    while depth > 0 {
      let current = Int(node[Int(pathNumber[depth - 1])])
      let position = Int(pathPosition[depth - 1])
      guard position < successors.positions(of: current).upperBound else {
        depth -= 1
        continue
      }
      pathPosition[depth - 1] = Int32(position + 1)
      steps += 1
      let next = successors.successor(of: current, at: position)
      if !isReached[next] {
        discover(next, from: pathNumber[depth - 1], depth: depth)
        depth += 1
      }
    }
    return Preorder(node: node, isReached: isReached, state: state, parent: parent, reachedCount: reached)
  }

  /// The immediate dominator of each preorder number, as a number (the root's is itself), by
  /// Lengauer and Tarjan's algorithm with path compression: in reverse preorder, each number's
  /// semidominator from its predecessors, then, once the number is linked into the forest, the
  /// immediate dominators of the numbers waiting in its parent's bucket (those whose semidominator
  /// the parent is), some of them as the dominator of another number, which a last pass in
  /// preorder resolves. Unlike the nearest-common-ancestor walk of Semi-NCA, which climbs the
  /// dominator tree once per number and so is quadratic on a long chain, every step here is on a
  /// compressed path.
  ///
  /// Its scratch space is mostly the preorder's: the forest's links are the depth-first parents,
  /// compressed in place (a number's own parent is read before anything changes it), and the
  /// buckets take the place of the nodes' two words once the predecessors are known.
  private static func immediateDominators(
    _ preorder: Preorder, _ successors: Successors, steps: inout Int
  ) -> UnsafeMutableBufferPointer<Int32> {
    let reached = preorder.reachedCount
    let dominator = UnsafeMutableBufferPointer<Int32>.allocate(capacity: reached)
    dominator[0] = 0
    guard reached > 1 else { return dominator }
    let predecessors = Predecessors(preorder, successors, steps: &steps)
    defer { predecessors.release() }
    var forest = CompressedForest(links: preorder.parent, count: reached)
    defer { forest.release() }
    // The numbers whose semidominator each number is, as linked lists through `nextInBucket`:
    // both in the preorder's two words per node, which the predecessors no longer need.
    let bucket = UnsafeMutableBufferPointer(rebasing: preorder.state[0..<reached])
    let nextInBucket = UnsafeMutableBufferPointer(rebasing: preorder.state[reached..<2 * reached])
    bucket.initialize(repeating: -1)
    let lookAhead = 8
    for number in stride(from: reached - 1, through: 1, by: -1) {
      let parent = preorder.parent[number]
      // The predecessors' forest entries of the number `lookAhead` steps on, asked for now.
      if number > lookAhead {
        for predecessor in predecessors.numbers[
          Int(predecessors.start[number - lookAhead])..<Int(predecessors.start[number - lookAhead + 1])]
        {
          forest.prefetch(predecessor)
        }
      }
      // Numbers above this one are linked: each predecessor's smallest semidominator on its
      // forest path.
      var best = parent
      for predecessor in predecessors.numbers[Int(predecessors.start[number])..<Int(predecessors.start[number + 1])] {
        let candidate = forest.semi[Int(forest.evaluate(predecessor, firstLinked: Int32(number + 1), steps: &steps))]
        if candidate < best { best = candidate }
      }
      forest.semi[number] = best
      nextInBucket[number] = bucket[Int(best)]
      bucket[Int(best)] = Int32(number)
      // This number is linked to its parent now; the numbers waiting for the parent are decided.
      var waiting = bucket[Int(parent)]
      while waiting >= 0 {
        steps += 1
        let lowest = forest.evaluate(waiting, firstLinked: Int32(number), steps: &steps)
        dominator[Int(waiting)] = forest.semi[Int(lowest)] < forest.semi[Int(waiting)] ? lowest : parent
        waiting = nextInBucket[Int(waiting)]
      }
      bucket[Int(parent)] = -1
    }
    // A number whose dominator was deferred to another's (a smaller number) takes that one's.
    for number in 1..<reached where dominator[number] != forest.semi[number] {
      dominator[number] = dominator[Int(dominator[number])]
    }
    steps += reached
    return dominator
  }

  /// The predecessors of each preorder number (reached sources only), as compressed rows.
  private struct Predecessors {
    /// Where each number's predecessors start in ``numbers``; one more entry than numbers.
    let start: UnsafeMutableBufferPointer<Int32>
    let numbers: UnsafeMutableBufferPointer<Int32>

    /// The rows, from the reached nodes' edges read in node order (the order the graph stores
    /// them) twice: once to count each target's predecessors, once to place them, each target's
    /// two words in the preorder's `state` asked for a few edges ahead. A row's order does not
    /// matter: a semidominator is a minimum over it.
    init(_ preorder: Preorder, _ successors: Successors, steps: inout Int) {
      let reached = preorder.reachedCount
      let state = preorder.state
      // Calls `body` with each edge of the reached nodes, source (as a node) and target's
      // count word, in node order.
      func forEachEdge(_ body: (_ sourceNode: Int, _ countIndex: Int) -> Void) {
        let lookAhead = PrefetchDistance.inOrder
        for sourceNode in 0..<successors.nodeCount where preorder.isReached[sourceNode] {
          for position in successors.positions(of: sourceNode) {
            if sourceNode != successors.virtualRoot, position &+ lookAhead < successors.targets.count {
              let ahead = Int(successors.targets[position &+ lookAhead])
              cprefetch_for_writing(state.baseAddress! + (2 &* ahead &+ 1))
            }
            body(sourceNode, 2 &* successors.successor(of: sourceNode, at: position) &+ 1)
          }
        }
      }
      forEachEdge { _, countIndex in state[countIndex] += 1 }
      let start = UnsafeMutableBufferPointer<Int32>.allocate(capacity: reached + 1)
      start[0] = 0
      for number in 0..<reached {
        let countIndex = 2 &* Int(preorder.node[number]) &+ 1
        let count = state[countIndex]
        state[countIndex] = start[number]
        start[number + 1] = start[number] + count
      }
      steps += 2 * Int(start[reached]) + successors.nodeCount
      let numbers = UnsafeMutableBufferPointer<Int32>.allocate(capacity: Int(start[reached]))
      forEachEdge { sourceNode, cursorIndex in
        numbers[Int(state[cursorIndex])] = state[2 &* sourceNode]
        state[cursorIndex] += 1
      }
      self.start = start
      self.numbers = numbers
    }

    func release() {
      start.deallocate()
      numbers.deallocate()
    }
  }

  /// The forest of processed preorder numbers that Lengauer and Tarjan's algorithm searches:
  /// each number's semidominator, and the forest's links, compressed as they are followed.
  /// Numbers from `firstLinked` on are linked to their depth-first parents; smaller ones are
  /// roots.
  private struct CompressedForest {
    /// The semidominator of each processed number; each number itself before.
    let semi: UnsafeMutableBufferPointer<Int32>
    /// The number of smallest semidominator on the compressed part of each number's path.
    let label: UnsafeMutableBufferPointer<Int32>
    /// Each number's link in the forest: its parent at first, then a compressed ancestor (the
    /// caller's buffer, changed in place).
    let ancestor: UnsafeMutableBufferPointer<Int32>
    /// The path being compressed, from its start up; grown when a path is longer.
    private var pending: UnsafeMutableBufferPointer<Int32>

    init(links: UnsafeMutableBufferPointer<Int32>, count: Int) {
      semi = .allocate(capacity: count)
      label = .allocate(capacity: count)
      ancestor = links
      pending = .allocate(capacity: 1024)
      for number in 0..<count {
        semi[number] = Int32(number)
        label[number] = Int32(number)
      }
    }

    func release() {
      for buffer in [semi, label, pending] { buffer.deallocate() }
    }

    /// Asks for `number`'s link and label, which ``evaluate(_:firstLinked:steps:)`` reads first.
    func prefetch(_ number: Int32) {
      cprefetch_for_reading(ancestor.baseAddress! + Int(number))
      cprefetch_for_reading(label.baseAddress! + Int(number))
    }

    /// The number of smallest semidominator on the forest path above `start` (`start` itself
    /// when it is a root), once the numbers from `firstLinked` on are linked; compresses the path.
    mutating func evaluate(_ start: Int32, firstLinked: Int32, steps: inout Int) -> Int32 {
      guard ancestor[Int(start)] >= firstLinked else { return label[Int(start)] }
      var depth = 0
      var current = start
      repeat {
        if depth == pending.count { growPending() }
        pending[depth] = current
        depth += 1
        current = ancestor[Int(current)]
      } while ancestor[Int(current)] >= firstLinked
      steps += depth
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

    private mutating func growPending() {
      let grown = UnsafeMutableBufferPointer<Int32>.allocate(capacity: pending.count * 2)
      _ = grown.initialize(from: pending)
      pending.deallocate()
      pending = grown
    }
  }
}
