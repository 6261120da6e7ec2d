import Dispatch
import HeapGraph
import LeakTestSupport
import Synchronization
import XCTest

/// Analyses run their leak analysis and dominator tree on threads of their own: many analyses
/// side by side (as tests checked in parallel run them) must all finish, each with the report it
/// gives alone.
final class HeapAnalysisConcurrencyTests: XCTestCase {
  func testAnalysesSideBySide_giveTheReportsEachGivesAlone() {
    let graphs = (1...24 as ClosedRange<UInt64>).map(Self.randomHeap)
    let alone = graphs.map { HeapAnalysis(graph: $0, options: .init(expectedDead: .generation(atLeast: 1))).renderJSON() }
    // The heaps must exercise every part: leaks, survivors and cycles.
    let analyses = graphs.map { HeapAnalysis(graph: $0, options: .init(expectedDead: .generation(atLeast: 1))) }
    XCTAssertGreaterThan(
      analyses.filter { $0.leaks.leakedObjectCount > 0 && !$0.leaks.survivors.isEmpty && $0.cycles.hasCycles }.count, 12)

    let sideBySide = Mutex([String?](repeating: nil, count: graphs.count))
    DispatchQueue.concurrentPerform(iterations: graphs.count) { index in
      let report = HeapAnalysis(graph: graphs[index], options: .init(expectedDead: .generation(atLeast: 1))).renderJSON()
      sideBySide.withLock { $0[index] = report }
    }
    XCTAssertEqual(sideBySide.withLock { $0 }, alone)
  }

  /// A heap of 200 to 1,000 objects with cycles, roots on some objects and generations 0 and 1.
  private static func randomHeap(seed: UInt64) -> ObjectGraph {
    var random = SeededGenerator(seed: seed)
    let count = Int.random(in: 200...1_000, using: &random)
    var builder = HeapSnapshot.Builder()
    for id in 1...count {
      builder.addObject(id: Int64(id), type: "T\(id % 7)", size: 16 + id % 5, generation: id % 3 == 0 ? 1 : 0)
    }
    for _ in 0..<(count * 2) {
      let from = Int64.random(in: 1...Int64(count), using: &random)
      let to = Int64.random(in: 1...Int64(count), using: &random)
      builder.addReference(from: from, to: to, label: "f\(to % 4)", ownership: to % 5 == 0 ? .weak : .strong)
    }
    for id in stride(from: 1, through: count, by: 97) { builder.addRoot(object: Int64(id), kind: .global) }
    return ObjectGraph(builder.snapshot)
  }
}
