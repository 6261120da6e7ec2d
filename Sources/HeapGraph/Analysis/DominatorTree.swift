/// The dominator tree of an ``ObjectGraph``'s strong edges, from a virtual root that holds the
/// snapshot's roots and the entry objects of unreachable (leaked) parts, and the retained size of
/// every object: its own size plus the sizes of everything it dominates (what would be freed if
/// it were).
///
/// Computed with the iterative algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast Dominance
/// Algorithm", 2001) over a reverse-postorder numbering from an iterative depth-first search.
///
/// - Complexity: O((*n* + *e*) · *d*) where *d*, the number of passes, is small for heaps.
struct DominatorTree {
  /// Immediate dominator of each node (`virtualRoot` for nodes held only by the virtual root).
  let immediateDominator: [Int32]
  /// Retained size of each node, in bytes (objects without a size count 0).
  let retainedSize: [Int64]
  /// Objects dominated by each node, itself included.
  let retainedCount: [Int32]
  /// The index used for the virtual root.
  let virtualRoot: Int

  init(graph: ObjectGraph, entries: [Int]) {
    let count = graph.objectCount
    virtualRoot = count
    // Depth-first postorder from the virtual root.
    var order = [Int32](repeating: -1, count: count + 1)  // postorder number
    var postorder: [Int32] = []
    postorder.reserveCapacity(count + 1)
    var stack: [(node: Int32, edge: Int32)] = [(Int32(count), 0)]
    var visited = [Bool](repeating: false, count: count + 1)
    visited[count] = true
    func successors(_ node: Int) -> Range<Int> {
      node == count ? 0..<entries.count : Int(graph.strongOffsets[node])..<Int(graph.strongOffsets[node + 1])
    }
    func successor(_ node: Int, _ position: Int) -> Int {
      node == count ? entries[position] : Int(graph.strongTargets[position])
    }
    while let (node, edge) = stack.last {
      let range = successors(Int(node))
      let position = range.lowerBound + Int(edge)
      if position < range.upperBound {
        stack[stack.count - 1].edge += 1
        let next = successor(Int(node), position)
        if !visited[next] {
          visited[next] = true
          stack.append((Int32(next), 0))
        }
      } else {
        order[Int(node)] = Int32(postorder.count)
        postorder.append(node)
        stack.removeLast()
      }
    }
    // Predecessors (reachable nodes only).
    var predecessors = [[Int32]](repeating: [], count: count + 1)
    for node in postorder {
      for position in successors(Int(node)) {
        let next = successor(Int(node), position)
        predecessors[next].append(node)
      }
    }
    var dominator = [Int32](repeating: -1, count: count + 1)
    dominator[count] = Int32(count)
    func intersect(_ first: Int32, _ second: Int32) -> Int32 {
      var a = first
      var b = second
      while a != b {
        while order[Int(a)] < order[Int(b)] { a = dominator[Int(a)] }
        while order[Int(b)] < order[Int(a)] { b = dominator[Int(b)] }
      }
      return a
    }
    var changed = true
    while changed {
      changed = false
      for node in postorder.reversed() where Int(node) != count {
        var candidate: Int32 = -1
        for predecessor in predecessors[Int(node)] where dominator[Int(predecessor)] >= 0 {
          candidate = candidate < 0 ? predecessor : intersect(predecessor, candidate)
        }
        if candidate >= 0 && dominator[Int(node)] != candidate {
          dominator[Int(node)] = candidate
          changed = true
        }
      }
    }
    // Retained sizes: children before parents (postorder).
    var size = [Int64](repeating: 0, count: count + 1)
    var objects = [Int32](repeating: 0, count: count + 1)
    for node in postorder {
      let index = Int(node)
      if index < count {
        size[index].addSaturating(max(graph.sizes[index], 0))
        if !graph.isClosureValue(index) { objects[index] += 1 }
      }
      let parent = Int(dominator[index])
      if parent >= 0 && parent != index {
        size[parent].addSaturating(size[index])
        objects[parent] += objects[index]
      }
    }
    immediateDominator = dominator
    retainedSize = size
    retainedCount = objects
  }
}
