import HeapGraph
import LeakTestSupport
import XCTest

/// FBRetainCycleDetector's detector catalogue on synthetic graphs, plus what it cannot do.
final class CycleFinderTests: XCTestCase {
  private func cycles(
    _ heap: TestHeap, maxLength: Int = 20, cap: Int = 100, from start: [String]? = nil
  ) -> CycleReport {
    let graph = heap.graph
    let startNodes = start?.map { graph.node(forObjectID: heap.ids[$0]!)! }
    return CycleFinder(configuration: .init(maxCycleLength: maxLength, maxCyclesPerComponent: cap))
      .findCycles(in: graph, from: startNodes)
  }

  // MARK: - FBRetainCycleDetector's catalogue

  func testCycleFinder_emptyObject_findsNoCycle() {
    let heap = TestHeap("Empty")
    let report = cycles(heap)
    XCTAssertTrue(report.cycles.isEmpty)
    XCTAssertTrue(report.components.isEmpty)
    XCTAssertFalse(report.hasCycles)
  }

  func testCycleFinder_selfCycle_findsOneCycleOfLengthOne() {
    let heap = TestHeap("Node.me -> Node")
    let report = cycles(heap)
    XCTAssertEqual(report.cycles.map(\.description), ["Node.me -> Node"])
    XCTAssertEqual(report.cycles.first?.length, 1)
  }

  func testCycleFinder_weakSelfReference_findsNoCycle() {
    for arrow in ["~>", "=>", ":>"] {
      let report = cycles(TestHeap("Node.me \(arrow) Node"))
      XCTAssertTrue(report.cycles.isEmpty, "ownership \(arrow) must not form a cycle")
    }
  }

  func testCycleFinder_threeObjectCycle_findsIt() {
    let heap = TestHeap("A.b -> B; B.c -> C; C.a -> A")
    let report = cycles(heap)
    XCTAssertEqual(report.cycles.map(\.description), ["A.b -> B.c -> C.a -> A"])
  }

  func testCycleFinder_weakEdgeInThreeCycle_breaksIt() {
    let report = cycles(TestHeap("A.b -> B; B.c -> C; C.a ~> A"))
    XCTAssertTrue(report.cycles.isEmpty)
  }

  func testCycleFinder_diamondWithoutBackEdge_findsNoCycle() {
    let report = cycles(TestHeap("A.b -> B; A.c -> C; B.d -> D; C.d -> D"))
    XCTAssertTrue(report.cycles.isEmpty)
  }

  func testCycleFinder_commonParent_findsBothCycles() {
    let heap = TestHeap("Parent.a -> A; Parent.b -> B; A.parent -> Parent; B.parent -> Parent")
    XCTAssertEqual(heapCycles(heap), [["Parent", "A"], ["Parent", "B"]])
  }

  func testCycleFinder_candidateOutsideTheCycle_findsTheCycleItReaches() {
    let heap = TestHeap("Candidate.a -> A; A.b -> B; B.a -> A")
    let report = cycles(heap, from: ["Candidate"])
    XCTAssertEqual(heap.cycleNames(report), [["A", "B"]])
  }

  func testCycleFinder_candidateDownstreamOfTheCycle_findsNothing() {
    let heap = TestHeap("A.b -> B; B.a -> A; B.c -> Candidate")
    XCTAssertTrue(cycles(heap, from: ["Candidate"]).cycles.isEmpty)
    XCTAssertEqual(cycles(heap).cycles.count, 1)
  }

  func testCycleFinder_objectInTwoCycles_findsBoth() {
    let heap = TestHeap("A.b -> B; B.a -> A; B.c -> C; C.b -> B")
    XCTAssertEqual(heapCycles(heap), [["A", "B"], ["B", "C"]])
  }

  func testCycleFinder_sevenNodeGraph_findsItsThreeCycles() {
    // FBRetainCycleDetector's example: 1→2, 1→3, 2→4, 2→5, 3→1, 5→6, 4→1, 5→7, 7→2.
    let heap = TestHeap(
      "N#1 -> N#2; N#1 -> N#3; N#2 -> N#4; N#2 -> N#5; N#3 -> N#1; N#5 -> N#6; N#4 -> N#1; N#5 -> N#7; N#7 -> N#2")
    XCTAssertEqual(heapCycles(heap), [["N#1", "N#3"], ["N#1", "N#2", "N#4"], ["N#2", "N#5", "N#7"]])
  }

  func testCycleFinder_cycleThroughCollectionElement_labelsTheElement() {
    let heap = TestHeap("Owner.items[0] -> Item; Item.owner -> Owner")
    XCTAssertEqual(cycles(heap).cycles.map(\.description), ["Item.owner -> Owner.items[0] -> Item"])
  }

  func testCycleFinder_cycleThroughCollectionNode_countsTheStorageObject() {
    // Producers other than ours may emit collection storage as an object of its own.
    let heap = TestHeap("Owner.items -> Storage; Storage.[0] -> Item; Item.owner -> Owner")
    let report = cycles(heap)
    XCTAssertEqual(report.cycles.map(\.length), [3])
    XCTAssertTrue(cycles(heap, maxLength: 2).cycles.isEmpty)
  }

  func testCycleFinder_collectionReferringToTheSameObjectTwice_findsOneCycle() {
    let heap = TestHeap("Owner.items[1] -> Item; Owner.items[0] -> Item; Item.owner -> Owner")
    let report = cycles(heap)
    XCTAssertEqual(report.cycles.map(\.description), ["Item.owner -> Owner.items[0] -> Item"])
    XCTAssertEqual(report.foundCycleCount, 1)
  }

  func testCycleFinder_cycleLongerThanMaxLength_isNotFoundButItsComponentIsListed() {
    let heap = TestHeap("A -> B; B -> C; C -> D; D -> E; E -> A")
    let short = cycles(heap, maxLength: 4)
    XCTAssertTrue(short.cycles.isEmpty)
    XCTAssertFalse(short.hasCycles)
    XCTAssertEqual(short.components.map(\.objectCount), [5])
    XCTAssertTrue(short.renderText().contains("only has cycles longer than 4 objects"))
    XCTAssertEqual(cycles(heap, maxLength: 5).cycles.map(\.length), [5])
  }

  func testCycleFinder_cycleOfSameTypes_startsAtTheLowestAddress() {
    let heap = TestHeap(
      "Node#1.next -> Node#2; Node#2.next -> Node#3; Node#3.next -> Node#1",
      addresses: ["Node#1": 0x3000, "Node#2": 0x1000, "Node#3": 0x2000])
    let cycle = cycles(heap).cycles[0]
    XCTAssertEqual(cycle.elements.map(\.address), [0x1000, 0x2000, 0x3000])
  }

  func testCycleFinder_cycleOfMixedTypes_startsAtTheSmallestTypeNameRotation() {
    let heap = TestHeap("B.c -> C; C.a -> A; A.b -> B", addresses: ["A": 0x9000, "B": 0x1000, "C": 0x2000])
    XCTAssertEqual(cycles(heap).cycles[0].elements.map(\.typeName), ["A", "B", "C"])
  }

  func testCycleFinder_manyCandidatesInOneCycle_reportItOnce() {
    let heap = TestHeap("A -> B; B -> C; C -> A")
    let report = cycles(heap, from: ["A", "B", "C", "A"])
    XCTAssertEqual(report.cycles.count, 1)
  }

  func testRetainCycle_everyCyclicShift_isTheSameValue() {
    let elements = [
      RetainCycle.Element(objectID: 7, typeName: "Feed", address: 0x7000, reference: "onUpdate"),
      RetainCycle.Element(objectID: 3, typeName: "closure #1 in Feed.load()", address: 0x3000, reference: "capture #0: Feed"),
      RetainCycle.Element(objectID: 5, typeName: "Feed", address: 0x5000, reference: "next"),
    ]
    let canonical = RetainCycle(elements: elements)
    for shift in 1..<elements.count {
      let shifted = Array(elements[shift...] + elements[..<shift])
      XCTAssertEqual(RetainCycle(elements: shifted), canonical)
      XCTAssertEqual(RetainCycle(elements: shifted).fingerprint, canonical.fingerprint)
    }
    XCTAssertEqual(canonical.elements.first?.objectID, 5, "equal type rotations start at the lower address")
  }

  // MARK: - Beyond FBRetainCycleDetector

  func testCycleFinder_globalVisitedSetBlindSpot_findsEveryCycle() {
    // FBRetainCycleDetector's visited set never reports A→B→C→A here.
    let heap = TestHeap("A.c -> C; C.a -> A; A.b -> B; B.c -> C")
    XCTAssertEqual(heapCycles(heap), [["A", "C"], ["A", "B", "C"]])
  }

  func testCycleFinder_millionObjectChain_doesNotOverflowTheStack() {
    var builder = HeapSnapshot.Builder()
    let count: Int64 = 1_000_000
    for id in 1...count { builder.addObject(id: id, type: "Link") }
    for id in 1..<count { builder.addReference(from: id, to: id + 1, label: "next", ownership: .strong) }
    let report = CycleFinder().findCycles(in: ObjectGraph(builder.snapshot))
    XCTAssertTrue(report.components.isEmpty)

    builder.addReference(from: count, to: 1, label: "next", ownership: .strong)
    let ring = CycleFinder().findCycles(in: ObjectGraph(builder.snapshot))
    XCTAssertEqual(ring.components.map(\.objectCount), [1_000_000])
    XCTAssertEqual(ring.foundCycleCount, 0, "the only cycle is longer than 20 objects")
    XCTAssertEqual(ring.components.first?.isComplete, true)
  }

  func testCycleFinder_longDoublyLinkedList_listsTheCapAndCountsTheRest() {
    var builder = HeapSnapshot.Builder()
    let count: Int64 = 20_000
    for id in 1...count { builder.addObject(id: id, type: "Link") }
    for id in 1..<count {
      builder.addReference(from: id, to: id + 1, label: "next", ownership: .strong)
      builder.addReference(from: id + 1, to: id, label: "previous", ownership: .strong)
    }
    let report = CycleFinder(configuration: .init(maxCycleLength: 2)).findCycles(in: ObjectGraph(builder.snapshot))
    XCTAssertEqual(report.components.count, 1)
    XCTAssertEqual(report.foundCycleCount, 19_999)
    XCTAssertEqual(report.cycles.count, 100)
    XCTAssertEqual(report.components[0].unlistedCycleCount, 19_899)
    XCTAssertTrue(report.components[0].isComplete)
  }

  func testCycleFinder_denseComponentOverTheCap_listsTheShortestCyclesAndCountsAll() {
    // The complete digraph on 6 nodes has sum over k of C(6,k)·(k-1)! = 409 elementary cycles.
    let names = (1...6).map { "K#\($0)" }
    let edges = names.flatMap { a in names.filter { $0 != a }.map { b in "\(a) -> \(b)" } }
    let report = cycles(TestHeap(edges.joined(separator: ";")), cap: 10)
    XCTAssertEqual(report.foundCycleCount, 409)
    XCTAssertEqual(report.cycles.count, 10)
    XCTAssertEqual(Set(report.cycles.map(\.length)), [2])
    XCTAssertTrue(report.renderText().contains("399 more not listed"))
  }

  func testCycleFinder_componentBeyondTheStepBudget_isMarkedIncomplete() {
    let names = (1...10).map { "K#\($0)" }
    let edges = names.flatMap { a in names.filter { $0 != a }.map { b in "\(a) -> \(b)" } }
    let configuration = CycleFinder.Configuration(stepBudgetPerComponent: 1_000, stepBudgetPerNode: 0)
    let report = CycleFinder(configuration: configuration).findCycles(in: TestHeap(edges.joined(separator: ";")).graph)
    XCTAssertEqual(report.components.first?.isComplete, false)
    XCTAssertTrue(report.hasCycles)
    XCTAssertTrue(report.renderText().contains("stopped at its step budget"))
  }

  func testCycleFinder_largeWellConnectedComponent_stopsAtItsBudget() {
    // 20,000 objects in a ring plus two random strong references each: one component in which
    // nearly every object is within 20 steps of every other, with astronomically many cycles.
    var random = SeededGenerator(seed: 7)
    var builder = HeapSnapshot.Builder()
    let count: Int64 = 20_000
    for id in 1...count { builder.addObject(id: id, type: "Mesh") }
    for id in 1...count {
      builder.addReference(from: id, to: id % count + 1, label: "next", ownership: .strong)
      for slot in 0..<2 {
        builder.addReference(from: id, to: Int64.random(in: 1...count, using: &random), label: "peer[\(slot)]", ownership: .strong)
      }
    }
    let configuration = CycleFinder.Configuration(stepBudgetPerComponent: 1_000_000, stepBudgetPerNode: 10)
    let report = CycleFinder(configuration: configuration).findCycles(in: ObjectGraph(builder.snapshot))
    XCTAssertEqual(report.components.map(\.objectCount), [20_000])
    XCTAssertEqual(report.components.first?.isComplete, false)
    XCTAssertEqual(report.cycles.count, 100)
  }

  func testCycleFinder_parallelEdgesBetweenTwoObjects_giveOneCycleWithTheSmallestLabel() {
    let heap = TestHeap("A.z -> B; A.y -> B; B.x -> A; B.w -> A")
    XCTAssertEqual(cycles(heap).cycles.map(\.description), ["A.y -> B.w -> A"])
  }

  func testFingerprint_addressesChange_fingerprintStays() {
    let first = cycles(TestHeap("A.b -> B; B.a -> A", addresses: ["A": 0x10, "B": 0x20])).cycles[0]
    let second = cycles(TestHeap("B.a -> A; A.b -> B", addresses: ["A": 0x90, "B": 0x30])).cycles[0]
    XCTAssertEqual(first.fingerprint, second.fingerprint)
    let relabelled = cycles(TestHeap("A.other -> B; B.a -> A")).cycles[0]
    XCTAssertNotEqual(first.fingerprint, relabelled.fingerprint)
    XCTAssertEqual(Fingerprint(first.fingerprint.description), first.fingerprint)
  }

  // MARK: - Helpers

  private func heapCycles(_ heap: TestHeap) -> [[String]] {
    cycles(heap).cycles.map { cycle in rotatedToSmallestID(cycle.elements.map(\.objectID)).map(heap.name(of:)) }
  }
}
