/// The types of the leaked objects that some leaked objects keep alive: what a leaked task's
/// closure and frames hold, what the instances of a leak group that grows retain. The objects
/// are those the entries reach through objects no root reaches; the entries themselves, and
/// closure values (no allocations), are not counted.
///
/// ```text
/// ["App.Worker": 3, "closure #1 in App.Server.spawn()": 3]
/// ```
enum LeakedObjectTypes {
  /// The types of what `entries` (nodes of `graph`) keep alive, with their counts, the entries'
  /// own types too when `countingEntries`; at most `limit` objects are looked at. Empty when a
  /// root reaches the entries (`tree`).
  ///
  /// - Complexity: O(*k* + *e*) for the *k* objects reached and their references.
  static func counts(
    keptAliveBy entries: [Int], graph: ObjectGraph, tree: ShortestPathTree, countingEntries: Bool = false, limit: Int = 100_000
  ) -> [String: Int] {
    var seen = Set(entries.filter { !tree.isReached($0) })
    let starts = seen.count
    var queue = Array(seen)
    var next = 0
    while next < queue.count && seen.count < limit {
      let node = queue[next]
      next += 1
      for edge in Int(graph.strongOffsets[node])..<Int(graph.strongOffsets[node + 1]) {
        let target = Int(graph.strongTargets[edge])
        if !tree.isReached(target) && seen.insert(target).inserted { queue.append(target) }
      }
    }
    return queue.dropFirst(countingEntries ? 0 : starts).filter { !graph.isClosureValue($0) }.reduce(into: [:]) {
      $0[graph.typeName(of: $1), default: 0] += 1
    }
  }
}
