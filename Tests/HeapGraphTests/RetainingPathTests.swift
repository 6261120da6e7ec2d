import HeapGraph
import LeakTestSupport
import XCTest

/// The explanations the leak checks in tests are built on: parent suppression among candidates,
/// and the shortest chain of references that holds an object.
final class RetainingPathTests: XCTestCase {
  private func nodes(_ heap: TestHeap, _ names: [String]) -> [Int] {
    names.map { heap.graph.node(forObjectID: heap.ids[$0]!)! }
  }

  private func names(_ heap: TestHeap, _ nodes: [Int]) -> [String] {
    let byID = Dictionary(uniqueKeysWithValues: heap.ids.map { ($0.value, $0.key) })
    return nodes.map { byID[heap.graph.objectID(of: $0)]! }
  }

  func testTopMostNodes_childHeldThroughAClosure_isSuppressed() {
    let heap = TestHeap("Screen.model -> Model; Model.onChange -> Closure; Closure.capture -> Model; Model.image -> Image")
    XCTAssertEqual(names(heap, heap.graph.topMostNodes(of: nodes(heap, ["Image", "Model", "Screen"]))), ["Screen"])
  }

  func testTopMostNodes_membersOfOneCycle_allStay() {
    let heap = TestHeap("A.b -> B; B.c -> C; C.a -> A")
    XCTAssertEqual(names(heap, heap.graph.topMostNodes(of: nodes(heap, ["A", "C"]))), ["A", "C"])
  }

  func testTopMostNodes_candidateReachedFromAnotherCycle_isSuppressed() {
    let heap = TestHeap("A.b -> B; B.a -> A; B.x -> X; X.c -> C; C.d -> D; D.c -> C")
    XCTAssertEqual(names(heap, heap.graph.topMostNodes(of: nodes(heap, ["C", "A", "D"]))), ["A"])
  }

  func testTopMostNodes_weakReference_doesNotHold() {
    let heap = TestHeap("A.b ~> B; B.c -> C")
    XCTAssertEqual(names(heap, heap.graph.topMostNodes(of: nodes(heap, ["A", "B", "C"]))), ["A", "B"])
  }

  func testRetainingPath_fromARoot_isTheShortestChain() {
    let heap = TestHeap("App.cache -> Cache; Cache.items[3] -> Item; App.long -> L1; L1.next -> L2; L2.item -> Item", roots: ["App"])
    let analysis = HeapAnalysis(graph: heap.graph)
    let path = analysis.retainingPath(to: nodes(heap, ["Item"])[0])
    XCTAssertEqual(path.steps.map(\.typeName), ["App", "Cache", "Item"])
    XCTAssertEqual(path.steps.map(\.reference), ["cache", "items[3]", nil])
    guard case .root(let kind, _) = path.origin else { return XCTFail("\(path)") }
    XCTAssertEqual(kind, .global)
  }

  func testRetainingPath_insideALeak_startsAtTheLeaksEntry() {
    let heap = TestHeap("App.x -> X; Cache.entry -> Entry; Entry.owner -> Cache; Entry.blob -> Blob", roots: ["App"])
    let path = HeapAnalysis(graph: heap.graph).retainingPath(to: nodes(heap, ["Blob"])[0])
    XCTAssertEqual(path.origin, .leaked)
    XCTAssertEqual(path.description, "leaked: Cache.entry -> Entry.blob -> Blob")
  }
}
