import LeakDetector
import XCTest

/// FBRetainCycleDetector's detector tests (ObjC and Swift) on live Swift objects, plus the cases
/// on its Swift TODO list: generic classes, enum payloads, nested closures, closures in collections.
final class RetainCycleDetectorTests: XCTestCase {
  // MARK: - Shapes

  func testDetector_objectWithoutReferences_findsNoCycle() {
    XCTAssertEqual(cycleDescriptions(from: escaping(Node("alone"))), [])
  }

  func testDetector_selfCycle_isFound() {
    let node = escaping(Node("self"))
    node.next = node
    XCTAssertEqual(cycleDescriptions(from: node), ["Node.next -> Node"])
  }

  func testDetector_weakSelfReference_isNotACycle() {
    let node = escaping(Node("self"))
    node.weakNext = node
    XCTAssertEqual(cycleDescriptions(from: node), [])
  }

  func testDetector_threeObjectCycle_isFoundFromEachMember() {
    let (a, b, c) = (escaping(Node("a")), escaping(Node("b")), escaping(Node("c")))
    a.next = b
    b.next = c
    c.next = a
    for start in [a, b, c] {
      XCTAssertEqual(cycleDescriptions(from: start), ["Node.next -> Node.next -> Node.next -> Node"])
    }
    let cycle = RetainCycleDetector.cycles(from: b)[0]
    XCTAssertEqual(cycle.elements.map(\.address), [a, b, c].map { UInt64(address(of: $0)) }.rotatedToSmallest())
  }

  func testDetector_weakLinkInThreeCycle_breaksIt() {
    let (a, b, c) = (escaping(Node("a")), escaping(Node("b")), escaping(Node("c")))
    a.next = b
    b.next = c
    c.weakNext = a
    XCTAssertEqual(cycleDescriptions(from: a), [])
  }

  func testDetector_cycleThroughArray_labelsTheElement() {
    let (parent, child) = (escaping(Node("parent")), escaping(Node("child")))
    parent.children = [escaping(Node("other")), child]
    child.next = parent
    XCTAssertEqual(cycleDescriptions(from: parent), ["Node.children[1] -> Node.next -> Node"])
  }

  func testDetector_cycleThroughDictionaryAndSet_labelsKeyAndMember() {
    let (parent, child) = (escaping(Node("parent")), escaping(Node("child")))
    parent.byName["kid"] = child
    child.members = [NodeKey(node: parent)]
    XCTAssertEqual(cycleDescriptions(from: parent), ["Node.byName[\"kid\"] -> Node.members[element].node -> Node"])
  }

  func testDetector_arrayHoldingTheSameObjectTwice_reportsOneCycle() {
    let (parent, child) = (escaping(Node("parent")), escaping(Node("child")))
    parent.children = [child, child]
    child.next = parent
    XCTAssertEqual(cycleDescriptions(from: parent), ["Node.children[0] -> Node.next -> Node"])
  }

  func testDetector_candidateOutsideTheCycle_findsTheCycleItReaches() {
    let (outside, a, b) = (escaping(Node("outside")), escaping(Node("a")), escaping(Node("b")))
    outside.next = a
    a.next = b
    b.next = a
    XCTAssertEqual(cycleDescriptions(from: outside), ["Node.next -> Node.next -> Node"])
    let cycle = RetainCycleDetector.cycles(from: outside)[0]
    XCTAssertFalse(cycle.elements.contains { $0.address == UInt64(address(of: outside)) })
  }

  func testDetector_objectInTwoCycles_reportsBoth() {
    let (a, b, c) = (escaping(Node("a")), escaping(Node("b")), escaping(Node("c")))
    a.next = b
    b.children = [a, c]
    c.next = b
    XCTAssertEqual(Set(cycleDescriptions(from: a)), ["Node.children[0] -> Node.next -> Node", "Node.children[1] -> Node.next -> Node"])
  }

  func testDetector_cycleLongerThanMaxLength_isNotReported() {
    let nodes = (0..<6).map { escaping(Node("\($0)")) }
    for (index, node) in nodes.enumerated() { node.next = nodes[(index + 1) % nodes.count] }
    XCTAssertEqual(cycleDescriptions(from: nodes[0], maxLength: 5), [])
    XCTAssertEqual(cycleDescriptions(from: nodes[0], maxLength: 6).count, 1)
  }

  func testDetector_inheritedProperty_formsTheCycle() {
    let child = escaping(ChildOfBase())
    child.parent = child
    XCTAssertEqual(cycleDescriptions(from: child), ["ChildOfBase.parent -> ChildOfBase"])
  }

  func testDetector_structMemberStrongVersusWeak() {
    let owner = escaping(StructOwner())
    let node = escaping(Node("n"))
    owner.holder.weakNode = node
    node.handler = { print(owner) }
    XCTAssertEqual(cycleDescriptions(from: owner), [])
    owner.holder.strongNode = node
    XCTAssertEqual(cycleDescriptions(from: owner).count, 1)
    XCTAssertTrue(cycleDescriptions(from: owner)[0].hasPrefix("Node.handler -> "), "\(cycleDescriptions(from: owner))")
  }

  func testDetector_delegatePattern_weakIsSafeStrongIsACycle() {
    let controller = escaping(ListController())
    controller.view.delegate = controller
    XCTAssertEqual(cycleDescriptions(from: controller), [])
    controller.view.strongDelegate = controller
    XCTAssertEqual(cycleDescriptions(from: controller), ["ListController.view -> ListView.strongDelegate -> ListController"])
  }

  // MARK: - Closures

  func testDetector_closureCapturingSelf_strongIsACycleWeakAndUnownedAreNot() {
    let strong = escaping(Feed())
    strong.bindWithOther(escaping(Leaf()))
    XCTAssertEqual(cycleDescriptions(from: strong), ["Feed.onUpdate -> closure #1 in Feed.bindWithOther(Leaf).capture #0: Feed -> Feed"])
    let weak = escaping(Feed())
    weak.bindWeakly()
    XCTAssertEqual(cycleDescriptions(from: weak), [])
    let unowned = escaping(Feed())
    unowned.bindUnowned()
    XCTAssertEqual(cycleDescriptions(from: unowned), [])
  }

  func testDetector_closureCapturingOnlySelf_isACycleWhateverTheContextShape() {
    let feed = escaping(Feed())
    feed.bindStrongly()
    let cycles = cycleDescriptions(from: feed)
    XCTAssertEqual(cycles.count, 1)
    XCTAssertTrue(cycles[0].hasPrefix("Feed.onUpdate -> "), "\(cycles)")
    XCTAssertTrue(cycles[0].hasSuffix("Feed"), "\(cycles)")
  }

  func testDetector_methodReference_capturesSelf() {
    let feed = escaping(Feed())
    feed.bindMethodReference()
    XCTAssertEqual(cycleDescriptions(from: feed).count, 1)
  }

  func testDetector_closureViaIntermediateObject_isACycle() {
    let owner = escaping(ClosureOwner())
    owner.storeViaHelper()
    let cycles = cycleDescriptions(from: owner)
    XCTAssertEqual(cycles.count, 1)
    XCTAssertTrue(cycles[0].hasPrefix("ClosureOwner.helper -> Node.handler -> "), "\(cycles)")
  }

  func testDetector_mixedCaptures_onlyStrongOnesCount() {
    let owner = escaping(ClosureOwner())
    let other = escaping(Node("other"))
    other.handler = { print(owner) }
    owner.storeMixed(other)  // [weak self, unowned other]
    XCTAssertEqual(cycleDescriptions(from: owner), [])
    owner.storeMixedStrong(other)  // self strong, [weak other]
    XCTAssertEqual(cycleDescriptions(from: owner).count, 1)
  }

  func testDetector_nestedClosures_weakOnlyInTheInnerOneStillLeaks() {
    let leaking = escaping(ClosureOwner())
    leaking.storeNestedWeakInner()
    XCTAssertEqual(cycleDescriptions(from: leaking).count, 1)
    let safe = escaping(ClosureOwner())
    safe.storeNestedWeakBoth()
    XCTAssertEqual(cycleDescriptions(from: safe), [])
  }

  func testDetector_nestedClosure_isFollowedThroughTheOuterContext() {
    let feed = escaping(Feed())
    feed.bindNested()
    let cycles = cycleDescriptions(from: feed)
    XCTAssertEqual(cycles.count, 1)
    XCTAssertTrue(cycles[0].contains("closure #2 in Feed.bindNested()"), "\(cycles)")
  }

  func testDetector_capturedVar_cycleGoesThroughTheBox() {
    let owner = escaping(ClosureOwner())
    owner.storeCapturedVar()
    XCTAssertEqual(
      cycleDescriptions(from: owner),
      [
        "ClosureOwner.optionalAction -> closure #1 in ClosureOwner.storeCapturedVar().capture #0: box<ClosureOwner?>"
          + " -> box<Swift.Optional<ClosureOwner>>.value -> ClosureOwner"
      ])
    let single = escaping(ClosureOwner())
    single.storeOnlyCapturedVar()
    let cycles = cycleDescriptions(from: single)
    XCTAssertEqual(cycles.count, 1, "a lone captured var's box is the closure context")
    XCTAssertTrue(cycles[0].hasPrefix("ClosureOwner.optionalAction -> closure #1 in ClosureOwner.storeOnlyCapturedVar()"), "\(cycles)")
  }

  func testDetector_closuresInCollections_areFollowed() {
    let inDictionary = escaping(ClosureOwner())
    inDictionary.storeInDictionary()
    XCTAssertTrue(cycleDescriptions(from: inDictionary).first?.hasPrefix("ClosureOwner.actions[\"tap\"] -> ") ?? false)
    let inList = escaping(ClosureOwner())
    inList.storeInList()
    XCTAssertTrue(cycleDescriptions(from: inList).first?.hasPrefix("ClosureOwner.list[0] -> ") ?? false)
    let erased = escaping(Feed())
    erased.bindAsAny()
    XCTAssertEqual(cycleDescriptions(from: erased).count, 1)
  }

  // MARK: - What FBRetainCycleDetector could not do

  func testDetector_genericClass_cycleThroughItsValue() {
    let box = escaping(Box<Any>(0))
    box.value = box
    XCTAssertEqual(cycleDescriptions(from: box), ["Box<Any>.value -> Box<Any>"])
    let typed = escaping(Box<[Box<Int>?]>([]))
    let inner = escaping(Box(1))
    typed.value = [inner, nil]
    XCTAssertEqual(cycleDescriptions(from: typed), [])
  }

  func testDetector_enumPayload_cycleThroughTheCase() {
    let owner = escaping(LoadableOwner())
    let node = escaping(Node("n"))
    node.handler = { print(owner) }
    owner.state = .loaded(node, count: 2)
    let cycles = cycleDescriptions(from: owner)
    XCTAssertEqual(cycles.count, 1)
    XCTAssertTrue(cycles[0].hasPrefix("LoadableOwner.state.loaded.0 -> Node.handler -> "), "\(cycles)")
  }

  // MARK: - Detector behaviour

  func testDetector_keepsNoObjectAlive() {
    weak var weakNode: Node?
    do {
      let node = Node("temporary")
      node.next = node
      weakNode = escapingWeakly(node)
      let detector = RetainCycleDetector()
      detector.addCandidate(node)
      XCTAssertEqual(detector.findRetainCycles().count, 1)
      node.next = nil
    }
    XCTAssertNil(weakNode, "the detector must not extend lifetimes")
  }

  func testDetector_candidateThatDied_isSkipped() {
    let detector = RetainCycleDetector()
    do {
      let node = Node("gone")
      detector.addCandidate(node)
    }
    XCTAssertEqual(detector.findRetainCycles(), [])
  }

  func testDetector_edgeFilter_dropsMatchingEdges() {
    let (parent, child) = (escaping(Node("parent")), escaping(Node("child")))
    parent.children = [child]
    child.next = parent
    var configuration = RetainCycleDetector.Configuration()
    configuration.edgeFilters = [{ source, label, _ in source.hasSuffix("Node") && label.hasPrefix("children[") }]
    let detector = RetainCycleDetector(configuration: configuration)
    detector.addCandidate(parent)
    XCTAssertEqual(detector.findRetainCycles(), [])
  }

  func testDetector_unownedAsSuspicious_reportsCyclesThroughUnowned() {
    let feed = escaping(Feed())
    feed.bindUnowned()
    var configuration = RetainCycleDetector.Configuration()
    configuration.includesUnownedReferencesAsSuspicious = true
    let detector = RetainCycleDetector(configuration: configuration)
    detector.addCandidate(feed)
    let cycles = detector.findRetainCycles().map { unqualified($0.description) }
    XCTAssertEqual(cycles, ["Feed.onUpdate -> closure #1 in Feed.bindUnowned().capture #0: Feed (unowned) -> Feed"])
  }

  func testDetector_declaredReferences_ofASubclass_comeFromItsSuperclassConformance() {
    let holder = escaping(InheritingHolder())
    let node = escaping(Node("target"))
    holder.target = Unmanaged.passUnretained(node)
    node.handler = { print(holder) }
    let cycles = cycleDescriptions(from: holder)
    XCTAssertEqual(cycles.count, 1)
    XCTAssertTrue(cycles.first?.contains("InheritingHolder.target -> Node") == true, "\(cycles)")
  }

  func testDetector_declaredReferences_closeCyclesReflectionCannotSee() {
    let holder = escaping(UnmanagedHolder())
    let node = escaping(Node("target"))
    holder.target = Unmanaged.passUnretained(node)
    node.handler = { print(holder) }
    let cycles = cycleDescriptions(from: holder)
    XCTAssertEqual(cycles.count, 1)
    XCTAssertTrue(cycles[0].hasPrefix("Node.handler -> ") && cycles[0].contains("UnmanagedHolder.target -> Node"), "\(cycles)")

    let plain = escaping(Node("plain"))
    let other = escaping(Node("other"))
    plain.next = other
    var configuration = RetainCycleDetector.Configuration()
    configuration.referenceProviders = [{ object in (object as? Node) === other ? [DeclaredReference("registry", plain)] : [] }]
    let detector = RetainCycleDetector(configuration: configuration)
    detector.addCandidate(plain)
    XCTAssertEqual(detector.findRetainCycles().map(normalized), ["Node.next -> Node.registry -> Node"])
  }

  func testDetector_closureContexts_carryTheirSourceLocation() throws {
    let feed = escaping(Feed())
    feed.bindWithOther(escaping(Leaf()))
    let cycle = try XCTUnwrap(RetainCycleDetector.cycles(from: feed).first)
    let closure = try XCTUnwrap(cycle.elements.first { $0.typeName.hasPrefix("closure") })
    let site = try XCTUnwrap(closure.allocationSite.first)
    XCTAssertEqual(site.file.map { URL(fileURLWithPath: $0).lastPathComponent }, "ClosureFixtures.swift")
    XCTAssertNotNil(site.line)
  }

  func testDetector_reportAndSnapshot_roundTripThroughTheFileFormat() throws {
    let feed = escaping(Feed())
    feed.bindWithOther(escaping(Leaf()))
    let detector = RetainCycleDetector()
    detector.addCandidate(feed)
    let report = detector.findRetainCycleReport()
    let snapshot = try XCTUnwrap(detector.lastSnapshot)
    let reread = try HeapSnapshot(jsonBytes: snapshot.jsonBytes())
    let offline = CycleFinder().findCycles(in: ObjectGraph(reread))
    XCTAssertEqual(offline.cycles, report.cycles)
  }
}

@inline(never)
func escapingWeakly(_ node: Node) -> Node { node }

extension Array where Element == UInt64 {
  func rotatedToSmallest() -> [UInt64] {
    guard let index = indices.min(by: { self[$0] < self[$1] }) else { return self }
    return Array(self[index...] + self[..<index])
  }
}
