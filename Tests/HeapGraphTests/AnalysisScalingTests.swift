import HeapGraph
import XCTest

/// The analysis's work grows with the heap, not faster: on a family of heaps with the shapes that
/// once made it quadratic (a long chain whose objects are also held from its head, so that the
/// dominator tree is deep; survivors all along the chain; a long leaked chain, many leaked cycles
/// and many leaked objects of a few types; retaining paths of many leaked objects), doubling the
/// heap may at most about double the steps each phase counts (``AnalysisWork``). Steps, not
/// seconds: the counts are the same on every machine and in every build.
final class AnalysisScalingTests: XCTestCase {
  /// A heap of the family, about 4.5 × `size` objects.
  private struct ScalingHeap {
    let snapshot: HeapSnapshot
    /// The ids of the chain's objects (c1 … cn) and of the leaves they hold (y1 … yn).
    let chain: [Int64]
    let leaves: [Int64]
    /// Leaked objects whose retaining paths are asked for: the cycles' members and the objects
    /// the leaked singletons hold.
    let leaked: [Int64]

    init(size: Int) {
      var builder = HeapSnapshot.Builder(metadata: .init(tool: "AnalysisScalingTests"))
      var nextID: Int64 = 0
      func object(_ type: String, generation: Int = 0) -> Int64 {
        nextID += 1
        builder.addObject(id: nextID, type: type, address: UInt64(nextID) * 0x10, size: 32, generation: generation)
        return nextID
      }
      func strong(_ from: Int64, _ to: Int64, _ label: String) {
        builder.addReference(from: from, to: to, label: label, ownership: .strong)
      }
      // Reachable: App -> c1 -> c2 -> … -> cn, each ci -> yi, and c1 -> every yi. The chain comes
      // first, so that the depth-first search goes down it before it takes any leaf.
      let app = object("App")
      builder.addRoot(object: app, kind: "global", label: "App.shared")
      let chain = (0..<size).map { _ in object("Chain.Node", generation: 1) }
      let leaves = (0..<size).map { _ in object("Chain.Leaf") }
      strong(app, chain[0], "head")
      for index in chain.indices {
        if index + 1 < chain.count { strong(chain[index], chain[index + 1], "next") }
        strong(chain[index], leaves[index], "value")
        if index > 0 { strong(chain[0], leaves[index], "index[\(index)]") }
      }
      // Leaked: a chain as long, size / 4 cycles of two, and size / 2 objects of four types,
      // each holding a payload.
      let leakedChain = (0..<size).map { _ in object("Leaked.Link") }
      for index in leakedChain.indices.dropLast() { strong(leakedChain[index], leakedChain[index + 1], "next") }
      var leaked: [Int64] = []
      for _ in 0..<size / 4 {
        let owner = object("Leaked.Owner")
        let handler = object("closure #1 in Leaked.Owner.start()")
        strong(owner, handler, "onEvent")
        strong(handler, owner, "capture #0: Owner")
        leaked += [owner, handler]
      }
      for index in 0..<size / 2 {
        let holder = object("Leaked.Holder\(index % 4)")
        let payload = object("Leaked.Payload")
        strong(holder, payload, "payload")
        leaked.append(payload)
      }
      snapshot = builder.snapshot
      self.chain = chain
      self.leaves = leaves
      self.leaked = leaked
    }
  }

  /// The work of analysing a heap of the family, and of the retaining paths of its leaked objects.
  private func work(size: Int) -> (analysis: AnalysisWork, retainingPaths: Int) {
    let heap = ScalingHeap(size: size)
    let graph = ObjectGraph(heap.snapshot)
    let analysis = HeapAnalysis(graph: graph, options: .init(expectedDead: .generation(atLeast: 1)))
    var pathSteps = 0
    let paths = analysis.retainingPaths(to: heap.leaked.map { graph.node(forObjectID: $0)! }, steps: &pathSteps)
    XCTAssertEqual(paths.count, heap.leaked.count)
    XCTAssertEqual(analysis.leaks.survivors.count, 1, "only the chain's head is a top-most survivor")
    return (analysis.work, pathSteps)
  }

  func testDoublingTheHeap_atMostAboutDoublesTheWorkOfEveryPhase() {
    let small = work(size: 10_000)
    let large = work(size: 20_000)
    for ((name, smallSteps), (_, largeSteps)) in zip(small.analysis.phases, large.analysis.phases) {
      XCTAssertGreaterThan(smallSteps, 0, "\(name): the family must exercise every phase")
      XCTAssertLessThanOrEqual(
        Double(largeSteps), 2.5 * Double(smallSteps), "\(name): \(smallSteps) steps, then \(largeSteps) for twice the heap")
    }
    XCTAssertLessThanOrEqual(Double(large.analysis.total), 2.5 * Double(small.analysis.total))
    XCTAssertLessThanOrEqual(
      Double(large.retainingPaths), 2.5 * Double(small.retainingPaths),
      "retaining paths: \(small.retainingPaths) steps, then \(large.retainingPaths) for twice the heap")
  }

  func testDominatorTree_chainHeldFromItsHead_dominatesTheLeavesFromTheHead() {
    let size = 1_000
    let heap = ScalingHeap(size: size)
    let graph = ObjectGraph(heap.snapshot)
    let tree = DominatorTree(graph: graph, entries: graph.roots.map(\.node))
    let head = graph.node(forObjectID: heap.chain[0])!
    let second = graph.node(forObjectID: heap.chain[1])!
    // The head holds the rest of the chain and every leaf (each leaf is held from the head too).
    XCTAssertEqual(tree.retainedCount[head], Int32(2 * size))
    // The second link holds only the chain below it: every leaf is reached from the head as well.
    XCTAssertEqual(tree.retainedCount[second], Int32(size - 1))
    XCTAssertEqual(tree.retainedSize[second], Int64(32 * (size - 1)))
    for leaf in heap.leaves.prefix(10) { XCTAssertEqual(tree.retainedCount[graph.node(forObjectID: leaf)!], 1) }
  }

  func testRetainingPaths_manyLeakedObjects_matchOnePathAtATime() {
    let heap = ScalingHeap(size: 400)
    let graph = ObjectGraph(heap.snapshot)
    let analysis = HeapAnalysis(graph: graph)
    let nodes = (heap.leaked.prefix(20) + heap.leaves.prefix(5)).map { graph.node(forObjectID: $0)! }
    XCTAssertEqual(analysis.retainingPaths(to: nodes), nodes.map(analysis.retainingPath(to:)))
    XCTAssertEqual(
      analysis.retainingPath(to: graph.node(forObjectID: heap.leaves[7])!).description,
      "global App.shared: App.head -> Chain.Node.index[7] -> Chain.Leaf")
  }
}
