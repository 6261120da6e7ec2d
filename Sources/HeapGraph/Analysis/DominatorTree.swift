import CPrefetch

/// The dominator tree of an ``ObjectGraph``'s strong edges, from a virtual root that holds the
/// snapshot's roots and the entry objects of unreachable (leaked) parts, and the retained size of
/// every object: its own size plus the sizes of everything it dominates (what would be freed if
/// it were).
///
/// Computed with Lengauer and Tarjan's algorithm (path compression, no balancing) over the
/// preorder of an iterative depth-first search (``DominatorSearch``, see `immediateDominators`),
/// with predecessors stored as compressed rows by preorder number.
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

  /// The tree whose virtual root holds `entries`.
  package init(graph: ObjectGraph, entries: [Int]) {
    self.init(graph: graph, search: DominatorSearch(graph: graph, entries: []), entries: entries)
  }

  /// The tree whose virtual root holds `entries`, numbered by `search`, which began from some
  /// of them (on another core, before the others were known) and goes on from the rest. A
  /// search that began from a node that is not one of `entries` is not used. The search serves
  /// this tree only: its memory is freed once the tree is built.
  package init(graph: ObjectGraph, search begun: DominatorSearch, entries: [Int]) {
    let count = graph.objectCount
    let search = begun.hasOnlyEntries(among: entries) ? begun : DominatorSearch(graph: graph, entries: [])
    search.extend(with: entries)
    defer { search.release() }
    let reachedCount = search.reachedCount
    let node = search.node
    var steps = search.steps
    let dominator = search.withSuccessors { Self.immediateDominators(search, $0, steps: &steps) }
    defer { dominator.deallocate() }
    search.releaseScratch()
    // Retained sizes: children before parents (a dominator precedes what it dominates in
    // preorder, so reverse preorder), in node order at the end.
    let virtualRoot = count
    var retainedSize = [Int64](repeating: 0, count: count + 1)
    var retainedCount = [Int32](repeating: 0, count: count + 1)
    var immediateDominator = [Int32](repeating: Self.unreached, count: count)
    immediateDominator.withUnsafeMutableBufferPointer { parentOf in
      for number in 1..<max(reachedCount, 1) {
        let parent = Int(node[Int(dominator[number])])
        parentOf[Int(node[number])] = parent == virtualRoot ? Self.heldByEntries : Int32(parent)
      }
    }
    retainedSize.withUnsafeMutableBufferPointer { size in
      retainedCount.withUnsafeMutableBufferPointer { objects in
        let lookAhead = PrefetchDistance.inOrder
        for number in stride(from: reachedCount - 1, through: 0, by: -1) {
          // Numbers go down: the words of the node `lookAhead` numbers on are asked for now.
          if number >= lookAhead {
            let ahead = Int(node[number - lookAhead])
            cprefetch_for_writing(size.baseAddress! + ahead)
            cprefetch_for_writing(objects.baseAddress! + ahead)
          }
          let current = Int(node[number])
          if current != virtualRoot {
            size[current].addSaturating(max(graph.sizes[current], 0))
            if !graph.isClosureValue(current) { objects[current] += 1 }
          }
          let parent = Int(dominator[number])
          guard parent != number else { continue }
          let parentNode = Int(node[parent])
          size[parentNode].addSaturating(size[current])
          objects[parentNode] += objects[current]
        }
      }
    }
    steps += reachedCount
    self.retainedSize = retainedSize
    self.retainedCount = retainedCount
    self.immediateDominator = immediateDominator
    self.steps = steps
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
    _ preorder: DominatorSearch, _ successors: DominatorSearch.Successors, steps: inout Int
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
    init(_ preorder: DominatorSearch, _ successors: DominatorSearch.Successors, steps: inout Int) {
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
