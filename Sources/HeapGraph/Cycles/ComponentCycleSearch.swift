/// The enumeration of elementary cycles inside one strongly connected component, with reusable
/// scratch space (one search object serves every component of a run).
struct ComponentCycleSearch {
  struct Outcome {
    /// Listed cycles as node paths (shortest first, then in discovery order).
    var cycles: [[Int32]]
    var foundCount: Int
    var isComplete: Bool
    /// Edges looked at, by the search and the distances that prune it (``AnalysisWork``).
    var steps: Int
  }

  private let graph: ObjectGraph
  private let configuration: CycleFinder.Configuration
  /// node -> position in the current component, -1 outside it.
  private var localIndex: [Int32]

  init(graph: ObjectGraph, configuration: CycleFinder.Configuration) {
    self.graph = graph
    self.configuration = configuration
    localIndex = [Int32](repeating: -1, count: graph.objectCount)
  }

  /// The cycles among `members`, a strongly connected component of the graph.
  mutating func run(_ members: [Int32]) -> Outcome {
    for (position, node) in members.enumerated() { localIndex[Int(node)] = Int32(position) }
    defer { for node in members { localIndex[Int(node)] = -1 } }
    var enumeration = CycleEnumeration(
      adjacency: LocalAdjacency(members: members, graph: graph, localIndex: localIndex), members: members,
      configuration: configuration)
    enumeration.run()
    return Outcome(
      cycles: enumeration.kept.cycles, foundCount: enumeration.kept.foundCount, isComplete: enumeration.isComplete,
      steps: enumeration.steps + members.count)
  }
}

/// Forward and reverse adjacency restricted to a component, in local indices (positions in the
/// component's members), as compressed rows. Successor order follows the graph's (target, label)
/// order, so the search is deterministic.
private struct LocalAdjacency {
  /// Where each position's successors start in ``forward``; one more entry than positions.
  let forwardOffsets: [Int32]
  let forward: [Int32]
  /// Where each position's predecessors start in ``reverse``; one more entry than positions.
  let reverseOffsets: [Int32]
  let reverse: [Int32]

  /// The adjacency of `members`, whose positions `localIndex` gives by node (-1 outside them).
  init(members: [Int32], graph: ObjectGraph, localIndex: [Int32]) {
    let count = members.count
    var forwardOffsets = [Int32](repeating: 0, count: count + 1)
    var forward: [Int32] = []
    var inDegree = [Int32](repeating: 0, count: count + 1)
    for (position, node) in members.enumerated() {
      for edge in Int(graph.strongOffsets[Int(node)])..<Int(graph.strongOffsets[Int(node) + 1]) {
        let target = localIndex[Int(graph.strongTargets[edge])]
        guard target >= 0 else { continue }
        forward.append(target)
        inDegree[Int(target) + 1] += 1
      }
      forwardOffsets[position + 1] = Int32(forward.count)
    }
    for position in 0..<count { inDegree[position + 1] += inDegree[position] }
    let reverseOffsets = inDegree
    var reverse = [Int32](repeating: 0, count: forward.count)
    var fill = reverseOffsets
    for source in 0..<count {
      for edge in Int(forwardOffsets[source])..<Int(forwardOffsets[source + 1]) {
        let target = Int(forward[edge])
        reverse[Int(fill[target])] = Int32(source)
        fill[target] += 1
      }
    }
    self.forwardOffsets = forwardOffsets
    self.forward = forward
    self.reverseOffsets = reverseOffsets
    self.reverse = reverse
  }
}

/// The enumeration of one component's elementary cycles, each found from its smallest position
/// (`start`) by a depth-first search over larger positions, pruned by the distance back to
/// `start`: a path goes on only where it can still close within the longest cycle length.
/// Every edge looked at counts as a step, and the search stops when the steps pass the budget.
private struct CycleEnumeration {
  let adjacency: LocalAdjacency
  let members: [Int32]
  let maxLength: Int
  let budget: Int
  private(set) var steps = 0
  private(set) var kept: KeptCycles

  /// Per position: `start` when ``distance`` holds its distance back to the current `start`.
  private var distanceStamp: [Int32]
  /// Per position: edges back to the current `start`, when stamped.
  private var distance: [Int32]
  private var isOnPath: [Bool]
  private var queue: [Int32] = []
  /// The depth-first path, as positions, with the next successor edge of each in ``cursor``.
  private var path: [Int32] = []
  private var cursor: [Int32] = []

  init(adjacency: LocalAdjacency, members: [Int32], configuration: CycleFinder.Configuration) {
    let count = members.count
    self.adjacency = adjacency
    self.members = members
    maxLength = configuration.maxCycleLength
    let (scaled, overflow) = configuration.stepBudgetPerNode.multipliedReportingOverflow(by: count)
    let (sum, sumOverflow) = configuration.stepBudgetPerComponent.addingReportingOverflow(scaled)
    budget = overflow || sumOverflow ? Int.max : sum
    kept = KeptCycles(capacity: configuration.maxCyclesPerComponent, maxLength: maxLength)
    distanceStamp = [Int32](repeating: -1, count: count)
    distance = [Int32](repeating: 0, count: count)
    isOnPath = [Bool](repeating: false, count: count)
  }

  /// Whether every cycle was seen within the step budget.
  var isComplete: Bool { steps <= budget }

  /// Finds the cycles from every start, until the budget runs out.
  mutating func run() {
    for start in 0..<members.count {
      markDistances(backTo: start)
      if steps > budget { return }
      guard canClose(at: start) else { continue }
      guard enumerateCycles(from: start) else { return }
    }
  }

  /// Stamps the distances back to `start` through positions >= start, up to maxLength - 1
  /// edges (a breadth-first search over the reverse edges).
  private mutating func markDistances(backTo start: Int) {
    let startTag = Int32(start)
    distanceStamp[start] = startTag
    distance[start] = 0
    queue.removeAll(keepingCapacity: true)
    queue.append(startTag)
    var head = 0
    while head < queue.count {
      let node = Int(queue[head])
      head += 1
      let nextDistance = distance[node] + 1
      guard nextDistance < maxLength else { continue }
      steps += Int(adjacency.reverseOffsets[node + 1] - adjacency.reverseOffsets[node])
      for edge in Int(adjacency.reverseOffsets[node])..<Int(adjacency.reverseOffsets[node + 1]) {
        let predecessor = Int(adjacency.reverse[edge])
        guard predecessor > start, distanceStamp[predecessor] != startTag else { continue }
        distanceStamp[predecessor] = startTag
        distance[predecessor] = nextDistance
        queue.append(Int32(predecessor))
      }
    }
  }

  /// Whether anything can close a cycle back to `start`: a self-loop or a larger predecessor.
  private func canClose(at start: Int) -> Bool {
    let startTag = Int32(start)
    let predecessors = Int(adjacency.reverseOffsets[start])..<Int(adjacency.reverseOffsets[start + 1])
    return adjacency.reverse[predecessors].contains { $0 >= startTag }
  }

  /// Keeps the cycles through `start` and larger positions (depth-first); `false` when the
  /// budget ran out.
  private mutating func enumerateCycles(from start: Int) -> Bool {
    let startTag = Int32(start)
    path.removeAll(keepingCapacity: true)
    cursor.removeAll(keepingCapacity: true)
    path.append(startTag)
    cursor.append(adjacency.forwardOffsets[start])
    isOnPath[start] = true
    while let top = path.last {
      let edge = cursor[cursor.count - 1]
      guard edge < adjacency.forwardOffsets[Int(top) + 1] else {
        path.removeLast()
        cursor.removeLast()
        isOnPath[Int(top)] = false
        continue
      }
      cursor[cursor.count - 1] = edge + 1
      steps += 1
      if steps > budget {
        for node in path { isOnPath[Int(node)] = false }
        return false
      }
      let next = Int(adjacency.forward[Int(edge)])
      if next == start {
        kept.insert(path: path, of: members)
        continue
      }
      guard next > start, !isOnPath[next], distanceStamp[next] == startTag,
        path.count + Int(distance[next]) <= maxLength
      else { continue }
      path.append(Int32(next))
      cursor.append(adjacency.forwardOffsets[next])
      isOnPath[next] = true
    }
    return true
  }
}

/// The shortest `capacity` cycles seen so far (ties: the earliest found), and a count of all.
private struct KeptCycles {
  private var buckets: [[[Int32]]]  // by length
  private var keptCount = 0
  private var longestKept = 0
  private let capacity: Int
  private(set) var foundCount = 0

  init(capacity: Int, maxLength: Int) {
    self.capacity = capacity
    buckets = Array(repeating: [], count: maxLength + 1)
  }

  /// Counts the cycle along `path` (positions in `members`), and keeps it as nodes if it is
  /// among the shortest.
  mutating func insert(path: [Int32], of members: [Int32]) {
    let length = path.count
    foundCount += 1
    if keptCount < capacity {
      buckets[length].append(path.map { members[Int($0)] })
      keptCount += 1
      longestKept = max(longestKept, length)
      return
    }
    guard length < longestKept else { return }
    buckets[length].append(path.map { members[Int($0)] })
    buckets[longestKept].removeLast()
    while buckets[longestKept].isEmpty { longestKept -= 1 }
  }

  var cycles: [[Int32]] { buckets.flatMap { $0 } }
}
