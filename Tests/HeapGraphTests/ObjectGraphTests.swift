import HeapGraph
import LeakTestSupport
import Testing

/// The graph model's accessors, on snapshots built in code. (Swift Testing, so that both test
/// runners are exercised.)
@Suite struct ObjectGraphTests {
  private func sample() -> HeapSnapshot {
    var builder = HeapSnapshot.Builder()
    builder.addStack(id: 7, frames: [StackFrame(symbol: "MyApp.make()", file: "Make.swift", line: 3)])
    builder.addObject(id: 30, type: "MyApp.Feed", address: 0x3000, stack: 7)
    builder.addObject(id: 10, type: "MyApp.Cache")
    builder.addObject(id: 20, type: "closure #1 in MyApp.Feed.load()")
    builder.addReference(from: 30, to: 20, label: "onUpdate", ownership: .strong)
    builder.addReference(from: 30, to: 20, label: "backup", ownership: .strong)
    builder.addReference(from: 30, to: 10, label: "cache", ownership: .strong)
    builder.addReference(from: 20, to: 30, label: "capture #0: Feed", ownership: .weak)
    builder.addRoot(object: 10, kind: "global", label: "Cache.shared")
    return builder.snapshot
  }

  @Test func nodesAreInObjectIDOrder() {
    let graph = ObjectGraph(sample())
    #expect(graph.nodes.map(graph.objectID(of:)) == [10, 20, 30])
    #expect(graph.node(forObjectID: 20) == 1)
    #expect(graph.node(forObjectID: 25) == nil)
    #expect(graph.typeName(of: 2) == "MyApp.Feed")
    #expect(graph.address(of: 2) == 0x3000)
    #expect(graph.address(of: 0) == nil)
    #expect(graph.allocationStack(of: 2)?.frames.first?.description == "MyApp.make() (Make.swift:3)")
    #expect(graph.allocationStack(of: 0) == nil)
  }

  /// Labels are kept in two bytes while there are fewer than 65,535 of them, in four beyond: a
  /// heap with a label per dictionary key reads each label back either way, and no label reads
  /// as one.
  @Test(arguments: [3, 70_000]) func labelsReadBack_inTwoBytesOrFour(labelCount: Int) {
    var builder = HeapSnapshot.Builder()
    builder.addObject(id: 1, type: "MyApp.Cache")
    for index in 0..<labelCount {
      builder.addObject(id: Int64(index + 2), type: "MyApp.Entry")
      builder.addReference(from: 1, to: Int64(index + 2), label: "entries[\"key\(index)\"]", ownership: .strong)
    }
    builder.addObject(id: Int64(labelCount + 2), type: "MyApp.Entry")
    builder.addReference(from: 1, to: Int64(labelCount + 2), label: nil, ownership: .strong)
    let graph = ObjectGraph(builder.snapshot)
    #expect(graph.strongReferences(of: 0).count == labelCount + 1)
    for index in [0, labelCount / 2, labelCount - 1] {
      #expect(graph.label(from: 0, to: index + 1) == "entries[\"key\(index)\"]")
    }
    #expect(graph.label(from: 0, to: labelCount + 1) == nil)
  }

  @Test func strongReferencesAreSortedAndParallelOnesMerged() {
    let graph = ObjectGraph(sample())
    let feed = graph.node(forObjectID: 30)!
    let references = graph.strongReferences(of: feed)
    #expect(references.map(\.target) == [0, 1])
    #expect(references.map(\.label) == ["cache", "backup"])
    #expect(graph.label(from: feed, to: 1) == "backup")
    #expect(graph.label(from: 1, to: feed) == nil, "weak references are not strong edges")
    #expect(graph.referenceCount == 4)
    #expect(graph.strongReferenceCount == 3)
  }

  @Test func rootsAreResolvedToNodes() {
    let graph = ObjectGraph(sample())
    #expect(graph.roots == [ObjectGraph.Root(node: 0, kind: "global", label: "Cache.shared")])
  }

  @Test(arguments: [Ownership.strong, .weak, .unowned, .unmanaged])
  func onlyStrongOwnershipRetains(_ ownership: Ownership) {
    #expect(ownership.isRetaining == (ownership == .strong))
    let heap = TestHeap("A.next \(["strong": "->", "weak": "~>", "unowned": "=>", "unmanaged": ":>"][ownership.rawValue]!) A")
    #expect(CycleFinder().findCycles(in: heap.graph).hasCycles == ownership.isRetaining)
  }

  @Test func fingerprintTextRoundTrips() {
    let fingerprint = Fingerprint(rawValue: 0x00ab_cdef_0123_4567)
    #expect(fingerprint.description == "00abcdef01234567")
    #expect(Fingerprint("00abcdef01234567") == fingerprint)
    #expect(Fingerprint("xyz") == nil)
  }
}
