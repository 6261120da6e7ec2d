import HeapGraph
import LeakTestSupport
import XCTest

/// Cross-checks retained sizes from the dominator tree against their definition on random
/// graphs: what an object retains is what no longer reaches the roots once it is gone.
final class DominatorTreeOracleTests: XCTestCase {
  func testRetainedSizes_randomGraphs_matchRemovalReachability() {
    var comparedNodes = 0
    for seed in 1...500 as ClosedRange<UInt64> {
      var random = SeededGenerator(seed: seed)
      let nodeCount = Int.random(in: 1...24, using: &random)
      var builder = HeapSnapshot.Builder()
      let sizes = (0..<nodeCount).map { _ in Int.random(in: 1...1_000, using: &random) }
      for node in 0..<nodeCount { builder.addObject(id: Int64(node + 1), type: "T", size: sizes[node]) }
      var successors = [[Int]](repeating: [], count: nodeCount)
      for _ in 0..<Int.random(in: 0...(nodeCount * 3), using: &random) {
        let from = Int.random(in: 0..<nodeCount, using: &random)
        let to = Int.random(in: 0..<nodeCount, using: &random)
        builder.addReference(from: Int64(from + 1), to: Int64(to + 1), label: "f", ownership: .strong)
        successors[from].append(to)
      }
      let entries = (0..<Int.random(in: 1...3, using: &random)).map { _ in Int.random(in: 0..<nodeCount, using: &random) }
      let graph = ObjectGraph(builder.snapshot)
      // The same tree three ways: searched from its entries at once; from some of them first,
      // then the rest (as the analysis begins it on another core); and from a search begun at a
      // node that is no entry, which the tree must not use.
      let firstEntries = entries.filter { _ in Bool.random(using: &random) }
      let notAnEntry = (0..<nodeCount).first { !entries.contains($0) }
      let trees = [
        ("at once", DominatorTree(graph: graph, entries: entries)),
        (
          "begun from \(firstEntries)",
          DominatorTree(graph: graph, search: DominatorSearch(graph: graph, entries: firstEntries), entries: entries)
        ),
        (
          "begun from \(notAnEntry.map { [$0] } ?? [])",
          DominatorTree(graph: graph, search: DominatorSearch(graph: graph, entries: notAnEntry.map { [$0] } ?? []), entries: entries)
        ),
      ]

      let reached = reachable(from: entries, successors, without: nil)
      let freedBy = (0..<nodeCount).map { node in
        reached.contains(node) ? reached.subtracting(reachable(from: entries, successors, without: node)) : []
      }
      for (search, tree) in trees {
        for node in 0..<nodeCount {
          let freed = freedBy[node]
          let place = "seed \(seed), \(search): node \(node)"
          XCTAssertEqual(Int(tree.retainedSize[node]), freed.map { sizes[$0] }.reduce(0, +), place)
          XCTAssertEqual(Int(tree.retainedCount[node]), freed.count, place)
          comparedNodes += freed.count > 1 ? 1 : 0
          // The immediate dominator is the nearest object whose removal frees this one.
          let nearest = (0..<nodeCount).filter { $0 != node && freedBy[$0].contains(node) }.min { freedBy[$0].count < freedBy[$1].count }
          let expected = !reached.contains(node) ? DominatorTree.unreached : nearest.map(Int32.init) ?? DominatorTree.heldByEntries
          XCTAssertEqual(tree.immediateDominator[node], expected, place)
        }
      }
    }
    XCTAssertGreaterThan(comparedNodes, 1_500, "the random graphs must have nodes that dominate others")
  }

  /// The nodes `sources` reach when `removed` is taken out of the graph.
  private func reachable(from sources: [Int], _ successors: [[Int]], without removed: Int?) -> Set<Int> {
    var seen: Set<Int> = []
    var pending = sources.filter { $0 != removed }
    while let node = pending.popLast() {
      guard seen.insert(node).inserted else { continue }
      pending += successors[node].filter { $0 != removed && !seen.contains($0) }
    }
    return seen
  }
}
