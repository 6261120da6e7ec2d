import HeapGraph
import LeakTestSupport
import XCTest

/// Shark's analysis cases on synthetic graphs, and retained sizes.
final class LeakAnalysisTests: XCTestCase {
  private func survivors(_ heap: TestHeap, dead: [String]) -> [LeakAnalysis.Survivor] {
    LeakAnalysis(graph: heap.graph, expectedDead: .objects(Set(dead.compactMap { heap.ids[$0] }))).survivors
  }

  private func path(_ survivor: LeakAnalysis.Survivor) -> [String] {
    survivor.path.map { $0.typeName + ($0.reference.map { "." + $0 } ?? "") }
  }

  func testSurvivor_singlePath_isReportedWithItsSuspect() throws {
    let heap = TestHeap("App.screen -> Screen; Screen.model -> Model", roots: ["App"])
    let survivor = try XCTUnwrap(survivors(heap, dead: ["Screen"]).first)
    XCTAssertEqual(path(survivor), ["App.screen", "Screen"])
    XCTAssertEqual(survivor.suspect, "App.screen")
    XCTAssertEqual(survivor.root, "global App")
  }

  func testSurvivor_shortestPathWins() throws {
    let heap = TestHeap("App.a -> A; A.b -> B; B.leak -> Leak; App.d -> D; D.leak -> Leak", roots: ["App"])
    let survivor = try XCTUnwrap(survivors(heap, dead: ["Leak"]).first)
    XCTAssertEqual(path(survivor), ["App.d", "D.leak", "Leak"])
  }

  func testSurvivor_unreachableObject_hasNoPathButIsLeaked() {
    let heap = TestHeap("App.a -> A; Orphan.x -> A", roots: ["App"])
    XCTAssertTrue(survivors(heap, dead: ["Orphan"]).isEmpty)
    let analysis = LeakAnalysis(graph: heap.graph)
    XCTAssertEqual(analysis.leakedObjectCount, 1)
    XCTAssertEqual(analysis.leakGroups.map(\.summary), ["Orphan"])
  }

  func testWeakReference_doesNotKeepAnythingAlive() {
    let heap = TestHeap("App.cache ~> Item", roots: ["App"])
    XCTAssertTrue(survivors(heap, dead: ["Item"]).isEmpty)
    XCTAssertEqual(LeakAnalysis(graph: heap.graph).leakedObjectCount, 1)
  }

  /// The dominator tree's search begins from these before the components are known, on the
  /// promise that each is an entry of its own leak group.
  func testObjectsNothingHolds_areEachTheEntryOfTheirLeakGroup() {
    let heap = TestHeap(
      "App.a -> A; A.later ~> Orphan; Orphan.x -> Held; Cycle.y -> Pair; Pair.z -> Cycle; Pair.w -> Kept; Itself.me -> Itself",
      roots: ["App"])
    let nothingHolds = UnreachedComponents.objectsNothingHolds(in: heap.graph).map { heap.graph.objectID(of: $0) }
    XCTAssertEqual(nothingHolds, [heap.ids["Orphan"]])
    let entries = Set(LeakAnalysis(graph: heap.graph).leakGroups.flatMap(\.entryObjectIDs))
    XCTAssertTrue(entries.isSuperset(of: nothingHolds), "\(nothingHolds) are not all among the entries \(entries)")
    XCTAssertEqual(entries.count, 3, "Orphan, the cycle's entry and Itself")
  }

  func testFiveIdenticalLeaks_formOneGroupOfFive() {
    let statements = (1...5).map { "Feed#\($0).onUpdate -> Closure#\($0); Closure#\($0).capture -> Feed#\($0)" }
    let heap = TestHeap(statements.joined(separator: ";") + "; App.x -> Other", roots: ["App"])
    let groups = LeakAnalysis(graph: heap.graph).leakGroups
    XCTAssertEqual(groups.count, 1)
    XCTAssertEqual(groups.first?.instanceCount, 5)
    XCTAssertEqual(groups.first?.objectCount, 10)
    XCTAssertEqual(groups.first?.summary, "Closure.capture -> Feed.onUpdate -> Closure")
  }

  func testSurvivorFingerprint_ignoresTheTailAndFollowsTheSuspect() throws {
    let first = try XCTUnwrap(survivors(TestHeap("App.child -> B; B.x -> C", roots: ["App"]), dead: ["B"]).first)
    let tailDiffers = try XCTUnwrap(survivors(TestHeap("App.child -> B; B.y -> D; D.z -> E", roots: ["App"]), dead: ["B"]).first)
    let suspectDiffers = try XCTUnwrap(survivors(TestHeap("App.other -> B; B.x -> C", roots: ["App"]), dead: ["B"]).first)
    XCTAssertEqual(first.fingerprint, tailDiffers.fingerprint)
    XCTAssertNotEqual(first.fingerprint, suspectDiffers.fingerprint)
  }

  func testSurvivor_heldByAnotherSurvivor_isPartOfThatLeak() {
    let heap = TestHeap("App.screen -> Screen; Screen.model -> Model", roots: ["App"])
    XCTAssertEqual(survivors(heap, dead: ["Screen", "Model"]).map { $0.path.last?.typeName }, ["Screen"])
  }

  func testSurvivors_byGeneration() {
    let heap = TestHeap("App.old -> Old; App.new -> New", roots: ["App"], generations: ["App": 0, "Old": 1, "New": 2])
    let found = LeakAnalysis(graph: heap.graph, expectedDead: .generation(atLeast: 2)).survivors
    XCTAssertEqual(found.map { $0.path.last?.typeName }, ["New"])
  }

  func testLeakedObjectsHoldingLiveOnes_leakAloneAndRetainNothingLive() throws {
    let heap = TestHeap(
      "App.shared -> Shared; Leaked.shared -> Shared; Leaked.cycle -> Cycle; Cycle.back -> Leaked; Cycle.shared -> Shared",
      roots: ["App"], sizes: ["Shared": 100, "Leaked": 1, "Cycle": 2])
    let analysis = HeapAnalysis(graph: heap.graph)
    XCTAssertEqual(analysis.leaks.leakedObjectCount, 2)
    let group = try XCTUnwrap(analysis.leaks.leakGroups.first)
    XCTAssertEqual(analysis.leaks.leakGroups.count, 1)
    XCTAssertEqual(group.summary, "Cycle.back -> Leaked.cycle -> Cycle")
    XCTAssertEqual([group.objectCount, group.retainedSize], [2, 3], "Shared stays alive through App")
  }

  func testRetainedSize_chainDiamondAndSharedChildren() throws {
    let sizes = ["A": 10, "B": 20, "C": 40, "D": 80, "S": 1, "T": 2, "Shared": 100]
    // Chain and diamond below A (a leaked entry); Shared is held by both S and T (survivors).
    let heap = TestHeap(
      "A.b -> B; A.c -> C; B.d -> D; C.d -> D; App.s -> S; App.t -> T; S.x -> Shared; T.x -> Shared", roots: ["App"],
      sizes: sizes)
    let analysis = LeakAnalysis(graph: heap.graph, expectedDead: .objects([heap.ids["S"]!, heap.ids["T"]!]))
    let group = try XCTUnwrap(analysis.leakGroups.first)
    XCTAssertEqual(group.summary, "A")
    XCTAssertEqual(group.objectCount, 4)
    XCTAssertEqual(group.retainedSize, 150, "A dominates B, C and D in the diamond")
    XCTAssertEqual(analysis.survivors.map(\.retainedSize).sorted(), [1, 2], "Shared is retained by neither alone")
    let chain = TestHeap("X.y -> Y; Y.z -> Z", roots: [], sizes: ["X": 1, "Y": 2, "Z": 4])
    XCTAssertEqual(LeakAnalysis(graph: chain.graph).leakGroups, [], "without roots nothing is called leaked")
    let rooted = TestHeap("App.x -> Unused; X.y -> Y; Y.z -> Z", roots: ["App"], sizes: ["X": 1, "Y": 2, "Z": 4])
    XCTAssertEqual(LeakAnalysis(graph: rooted.graph).leakGroups.first?.retainedSize, 7, "a chain is retained by its head")
  }
}
