/// The enumeration of elementary cycles inside one strongly connected component, with reusable
/// scratch space (one search object serves every component of a run).
struct ComponentCycleSearch {
  struct Outcome {
    /// Listed cycles as node paths (shortest first, then in discovery order).
    var cycles: [[Int32]]
    var foundCount: Int
    var isComplete: Bool
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

  mutating func run(_ members: [Int32]) -> Outcome {
    let count = members.count
    for (position, node) in members.enumerated() { localIndex[Int(node)] = Int32(position) }
    defer { for node in members { localIndex[Int(node)] = -1 } }

    // Forward and reverse adjacency restricted to the component, in local indices. Successor
    // order follows the graph's (target, label) order, so the search is deterministic.
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

    let maxLength = configuration.maxCycleLength
    let cap = configuration.maxCyclesPerComponent
    let (scaled, overflow) = configuration.stepBudgetPerNode.multipliedReportingOverflow(by: count)
    let (sum, sumOverflow) = configuration.stepBudgetPerComponent.addingReportingOverflow(scaled)
    let budget = overflow || sumOverflow ? Int.max : sum
    var steps = 0
    var kept = KeptCycles(capacity: cap, maxLength: maxLength)

    var distanceStamp = [Int32](repeating: -1, count: count)  // == start: distance is valid
    var distance = [Int32](repeating: 0, count: count)
    var isOnPath = [Bool](repeating: false, count: count)
    var queue: [Int32] = []
    var path: [Int32] = []
    var cursor: [Int32] = []

    search: for start in 0..<count {
      // Distances back to `start` through nodes >= start, up to maxLength - 1 edges.
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
        steps += Int(reverseOffsets[node + 1] - reverseOffsets[node])
        for edge in Int(reverseOffsets[node])..<Int(reverseOffsets[node + 1]) {
          let predecessor = Int(reverse[edge])
          guard predecessor > start, distanceStamp[predecessor] != startTag else { continue }
          distanceStamp[predecessor] = startTag
          distance[predecessor] = nextDistance
          queue.append(Int32(predecessor))
        }
      }
      if steps > budget { break search }
      // Can anything close a cycle back to `start`? (A self-loop or a larger predecessor.)
      var closes = false
      for edge in Int(reverseOffsets[start])..<Int(reverseOffsets[start + 1]) where reverse[edge] >= startTag {
        closes = true
        break
      }
      guard closes else { continue }

      path.removeAll(keepingCapacity: true)
      cursor.removeAll(keepingCapacity: true)
      path.append(startTag)
      cursor.append(forwardOffsets[start])
      isOnPath[start] = true
      while let top = path.last {
        let edge = cursor[cursor.count - 1]
        guard edge < forwardOffsets[Int(top) + 1] else {
          path.removeLast()
          cursor.removeLast()
          isOnPath[Int(top)] = false
          continue
        }
        cursor[cursor.count - 1] = edge + 1
        steps += 1
        if steps > budget {
          for node in path { isOnPath[Int(node)] = false }
          break search
        }
        let next = Int(forward[Int(edge)])
        if next == start {
          kept.insert(length: path.count) { path.map { members[Int($0)] } }
          continue
        }
        guard next > start, !isOnPath[next], distanceStamp[next] == startTag,
          path.count + Int(distance[next]) <= maxLength
        else { continue }
        path.append(Int32(next))
        cursor.append(forwardOffsets[next])
        isOnPath[next] = true
      }
    }
    return Outcome(cycles: kept.cycles, foundCount: kept.foundCount, isComplete: steps <= budget)
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

  mutating func insert(length: Int, _ cycle: () -> [Int32]) {
    foundCount += 1
    if keptCount < capacity {
      buckets[length].append(cycle())
      keptCount += 1
      longestKept = max(longestKept, length)
      return
    }
    guard length < longestKept else { return }
    buckets[length].append(cycle())
    buckets[longestKept].removeLast()
    while buckets[longestKept].isEmpty { longestKept -= 1 }
  }

  var cycles: [[Int32]] { buckets.flatMap { $0 } }
}
