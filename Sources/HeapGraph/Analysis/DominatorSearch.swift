import CPrefetch

/// The depth-first search that numbers a ``DominatorTree``'s nodes in preorder, from a virtual
/// root whose successors are the tree's entries. It can begin before every entry is known and
/// go on with the rest later: the leak analysis begins it from the entries every heap with
/// roots has (the roots, and the objects nothing holds) on the second core while the first
/// searches the strongly connected components, and goes on from the entries of the leaked
/// cycles once they are chosen.
///
/// The order of the search does not change the tree: a node's dominators depend on which nodes
/// are entries, not on the order in which they are searched.
///
/// ```swift
/// let search = DominatorSearch(graph: graph, entries: graph.roots.map(\.node))  // on another core
/// let tree = DominatorTree(graph: graph, search: search, entries: graph.roots.map(\.node) + leakEntries)
/// ```
package final class DominatorSearch: @unchecked Sendable {
  // One thread at a time: the search is begun on one thread and handed to another after it.
  private let offsets: [Int32]
  private let targets: [Int32]
  /// The virtual root's successors so far, in the order searched.
  private(set) var entries: [Int] = []
  /// Node of each number, for `0..<reachedCount` (the virtual root, the node after the graph's
  /// last, is 0).
  let node: UnsafeMutableBufferPointer<Int32>
  /// Which nodes the search reached: the one question it asks of every edge, answered from a
  /// bit that stays in the caches (see ``NodeBits``).
  let isReached: NodeBits
  /// Two words per reached node (undefined for the others), read together: the node's
  /// number, then how many edges from reached nodes lead to it (counted once the search is
  /// done, see ``DominatorTree``'s predecessors), which becomes the cursor where its row is
  /// filled. The dominator computation then takes the whole as scratch space.
  let state: UnsafeMutableBufferPointer<Int32>
  /// Number of each number's parent in the depth-first tree (the root's is 0). The dominator
  /// computation compresses it in place into its forest's links.
  let parent: UnsafeMutableBufferPointer<Int32>
  private(set) var reachedCount = 0
  /// The edges followed, the search's part of ``DominatorTree/steps``.
  private(set) var steps = 0
  private var isScratchReleased = false
  private var isReleased = false

  /// Searches `graph`'s strong edges from `entries`.
  package init(graph: ObjectGraph, entries: [Int]) {
    offsets = graph.strongOffsets
    targets = graph.strongTargets
    let nodeCount = graph.objectCount + 1
    node = .allocate(capacity: nodeCount)
    isReached = NodeBits(count: nodeCount)
    state = .allocate(capacity: 2 * nodeCount)
    parent = .allocate(capacity: nodeCount)
    extend(with: entries)
  }

  deinit {
    release()
  }

  /// Goes on from `more` entries, after the others (those already reached are passed over).
  func extend(with more: [Int]) {
    let firstPosition = entries.count
    entries += more
    withSuccessors { search($0, fromEntryPosition: firstPosition) }
  }

  /// Whether every entry searched so far is one of `entries`: only then is the search part of
  /// the tree whose entries they are.
  func hasOnlyEntries(among entries: [Int]) -> Bool {
    let isEntry = NodeBits(count: node.count)
    defer { isEntry.release() }
    for entry in entries { isEntry.set(entry) }
    return self.entries.allSatisfy { isEntry[$0] }
  }

  /// Calls `body` with the successors of the search's nodes.
  func withSuccessors<Result>(_ body: (Successors) -> Result) -> Result {
    offsets.withUnsafeBufferPointer { offsets in
      targets.withUnsafeBufferPointer { targets in
        entries.withUnsafeBufferPointer { entries in
          body(Successors(offsets: offsets, targets: targets, entries: entries, virtualRoot: node.count - 1))
        }
      }
    }
  }

  /// Frees all but ``node``, once the dominators are known.
  func releaseScratch() {
    guard !isScratchReleased else { return }
    isScratchReleased = true
    isReached.release()
    state.deallocate()
    parent.deallocate()
  }

  /// Frees everything.
  func release() {
    guard !isReleased else { return }
    releaseScratch()
    isReleased = true
    node.deallocate()
  }

  /// A node's successors: the strong edges' targets, or the entries for the virtual root.
  struct Successors {
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

  /// The depth-first search from the virtual root's successors at `firstPosition` on.
  private func search(_ successors: Successors, fromEntryPosition firstPosition: Int) {
    // The depth-first path, as numbers, with the next successor position of each. Each node is
    // on it at most once, so it never outgrows the node count.
    let pathNumber = UnsafeMutableBufferPointer<Int32>.allocate(capacity: node.count)
    let pathPosition = UnsafeMutableBufferPointer<Int32>.allocate(capacity: node.count)
    defer {
      pathNumber.deallocate()
      pathPosition.deallocate()
    }
    var reached = reachedCount
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
    if reached == 0 {
      discover(successors.virtualRoot, from: 0, depth: 0)
    } else {
      pathNumber[0] = 0
    }
    pathPosition[0] = Int32(firstPosition)
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
    reachedCount = reached
  }
}
