import HeapGraph
import LeakTestSupport
import XCTest

/// Cross-checks the cycle finder against a brute-force enumeration on random graphs.
final class CycleFinderOracleTests: XCTestCase {
  func testCycleFinder_randomGraphs_matchBruteForceEnumeration() {
    var comparedCycles = 0
    for seed in 1...1_000 as ClosedRange<UInt64> {
      var random = SeededGenerator(seed: seed)
      let nodeCount = Int.random(in: 1...8, using: &random)
      let edgeCount = Int.random(in: 0...(nodeCount * 4), using: &random)
      let maxLength = Int.random(in: 1...nodeCount, using: &random)
      var builder = HeapSnapshot.Builder()
      // Shuffled, sparse ids: the finder must not depend on ids being dense or ordered.
      let ids = (0..<nodeCount).map { Int64($0 * 7 + 3) }.shuffled(using: &random)
      for id in ids { builder.addObject(id: id, type: "T\(id % 3)") }
      var strong: [Int64: Set<Int64>] = [:]
      for _ in 0..<edgeCount {
        let from = ids.randomElement(using: &random)!
        let to = ids.randomElement(using: &random)!
        let ownership = [Ownership.strong, .strong, .strong, .weak, .unowned].randomElement(using: &random)!
        builder.addReference(from: from, to: to, label: "f\(Int.random(in: 0..<3, using: &random))", ownership: ownership)
        if ownership == .strong { strong[from, default: []].insert(to) }
      }
      let expected = bruteForceCycles(strong, maxLength: maxLength)
      let report = CycleFinder(configuration: .init(maxCycleLength: maxLength, maxCyclesPerComponent: 1_000))
        .findCycles(in: ObjectGraph(builder.snapshot))
      let found = report.cycles.map { rotatedToSmallestID($0.elements.map(\.objectID)) }
      XCTAssertEqual(found.count, Set(found).count, "seed \(seed): a cycle was reported twice")
      XCTAssertEqual(Set(found), expected, "seed \(seed): \(nodeCount) nodes, max length \(maxLength)")
      XCTAssertEqual(report.foundCycleCount, expected.count, "seed \(seed)")
      comparedCycles += expected.count
    }
    XCTAssertGreaterThan(comparedCycles, 1_000, "the random graphs must exercise the finder")
  }

  /// Every elementary cycle, by plain DFS from every node over every simple path.
  private func bruteForceCycles(_ successors: [Int64: Set<Int64>], maxLength: Int) -> Set<[Int64]> {
    var cycles: Set<[Int64]> = []
    func extend(_ path: [Int64]) {
      for next in successors[path.last!, default: []] {
        if next == path[0] {
          cycles.insert(rotatedToSmallestID(path))
        } else if !path.contains(next) && path.count < maxLength {
          extend(path + [next])
        }
      }
    }
    for start in successors.keys { extend([start]) }
    return cycles
  }
}
