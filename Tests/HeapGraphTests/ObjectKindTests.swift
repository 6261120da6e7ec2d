import HeapGraph
import Testing

/// The object kind: recorded in snapshots, read leniently, inferred from the type name when
/// absent, and used by the canonical rotation of cycles.
@Suite struct ObjectKindTests {
  private let header = #"{"format": "swift-heap-snapshot", "version": 1, "references": [], "objects": ["#

  private func decode(_ objects: String) throws(SnapshotDecodingError) -> HeapSnapshot {
    try HeapSnapshot(jsonBytes: Array((header + objects + "]}").utf8))
  }

  @Test func inferenceFromTypeNames() {
    let expected: [(String, ObjectKind)] = [
      ("MyApp.Feed", .classInstance),
      ("closure #1 in MyApp.Feed.load()", .closureContext),
      ("implicit closure #1 in MyApp.Feed.load()", .closureContext),
      ("reabstraction thunk", .closureContext),
      ("closure context", .closureContext),
      ("box<Int>", .box),
      ("box", .box),
      ("Task", .task),
      ("MyApp.Task", .classInstance),
      ("boxed", .classInstance),
      ("MyApp.closure #1", .classInstance),
    ]
    for (name, kind) in expected {
      #expect(ObjectKind.inferred(fromTypeName: name) == kind, "\(name)")
    }
    #expect(ObjectKind.allCases.map(\.rawValue) == ["class", "closure", "box", "task"])
  }

  @Test func kindsSurviveWritingAndReading() throws {
    var builder = HeapSnapshot.Builder()
    builder.addObject(id: 1, type: "MyApp.Feed", address: 0x10, kind: .classInstance)
    builder.addObject(id: 2, type: "closure #1 in MyApp.Feed.load()", kind: .closureContext)
    builder.addObject(id: 3, type: "box<Int>", kind: .box)
    builder.addObject(id: 4, type: "MyApp.Cache")
    builder.addObject(id: 5, type: "Task", address: 0x20, kind: .task)
    let snapshot = builder.snapshot
    let bytes = snapshot.jsonBytes()
    let text = String(decoding: bytes, as: UTF8.self)
    #expect(text.contains(#"{"id": 1, "type": "MyApp.Feed", "kind": "class", "address": "0x10"}"#))
    #expect(text.contains(#"{"id": 4, "type": "MyApp.Cache"}"#))

    let decoded = try HeapSnapshot(jsonBytes: bytes)
    #expect(decoded == snapshot)
    #expect(decoded.jsonBytes() == bytes)
    #expect(decoded.objects.map(\.kind) == [.classInstance, .closureContext, .box, nil, .task])
    #expect(decoded.stripped().objects.map(\.kind) == [.classInstance, .closureContext, .box, nil, .task])
    var binary = BinaryWriter()
    snapshot.write(into: &binary)
    var reader = BinaryReader(binary.bytes)
    #expect(try HeapSnapshot(reading: &reader).objects.map(\.kind) == [.classInstance, .closureContext, .box, nil, .task])
  }

  @Test func anAbsentKindIsInferredFromTheTypeName() throws {
    let snapshot = try decode(
      #"{"id": 2, "type": "box<Int>"}, {"id": 1, "type": "closure #2 in f()", "kind": null}, {"id": 3, "type": "A"}"#)
    #expect(snapshot.objects.map(\.kind) == [nil, nil, nil])
    let graph = ObjectGraph(snapshot)
    #expect(graph.nodes.map(graph.kind(of:)) == [.closureContext, .box, .classInstance])
  }

  @Test func aRecordedKindWinsOverTheTypeName() throws {
    let snapshot = try decode(#"{"id": 1, "type": "closure #1 in f()", "kind": "class"}, {"id": 2, "type": "MyApp.Holder", "kind": "box"}"#)
    let graph = ObjectGraph(snapshot)
    #expect(graph.nodes.map(graph.kind(of:)) == [.classInstance, .box])
  }

  @Test func anUnknownKindIsReadAsUnknown() throws {
    let snapshot = try decode(#"{"id": 1, "type": "MyApp.Feed", "kind": "actor"}, {"id": 2, "type": "box<Int>", "kind": "Class"}"#)
    #expect(snapshot.objects.map(\.kind) == [nil, nil])
    let graph = ObjectGraph(snapshot)
    #expect(graph.nodes.map(graph.kind(of:)) == [.classInstance, .box])
    #expect(!String(decoding: snapshot.jsonBytes(), as: UTF8.self).contains("\"kind\""))
  }

  @Test func aKindThatIsNotAStringIsAnError() {
    let record = #"{"id": 1, "type": "A", "kind": "#
    for value in ["1", "true", "[]", #"{"name": "class"}"#] {
      // A do/catch rather than #expect(throws:) with a closure: that form crashes the 6.3.1
      // optimizer (CopyPropagation) in release builds of this file.
      do throws(SnapshotDecodingError) {
        _ = try decode(record + value + "}")
        Issue.record("\(value) was accepted as a kind")
      } catch {
        #expect(error.code == "wrong-type")
        #expect(error.location?.path == "objects[0].kind")
        #expect(error.location?.byteOffset == header.utf8.count + record.utf8.count)
        #expect(error.description.contains(#"expected a string ("class", "closure" or "box") or null"#))
      }
    }
  }

  @Test func theRecordedKindDecidesTheRotation() {
    // "A.Context" sorts before "MyApp.Feed" by name; recorded as a closure context it comes after.
    func cycle(contextKind: ObjectKind?) -> [String] {
      var builder = HeapSnapshot.Builder()
      builder.addObject(id: 1, type: "A.Context", kind: contextKind)
      builder.addObject(id: 2, type: "MyApp.Feed")
      builder.addReference(from: 1, to: 2, label: "capture #0: Feed", ownership: .strong)
      builder.addReference(from: 2, to: 1, label: "onUpdate", ownership: .strong)
      let report = CycleFinder().findCycles(in: ObjectGraph(builder.snapshot))
      return report.cycles.first?.elements.map(\.typeName) ?? []
    }
    #expect(cycle(contextKind: nil) == ["A.Context", "MyApp.Feed"])
    #expect(cycle(contextKind: .classInstance) == ["A.Context", "MyApp.Feed"])
    #expect(cycle(contextKind: .closureContext) == ["MyApp.Feed", "A.Context"])
    #expect(cycle(contextKind: .box) == ["MyApp.Feed", "A.Context"])
  }

  @Test func cycleElementsCarryTheKind() {
    var builder = HeapSnapshot.Builder()
    builder.addObject(id: 1, type: "A.Context", kind: .closureContext)
    builder.addObject(id: 2, type: "closure #1 in f()")
    builder.addReference(from: 1, to: 2, label: nil, ownership: .strong)
    builder.addReference(from: 2, to: 1, label: nil, ownership: .strong)
    let elements = CycleFinder().findCycles(in: ObjectGraph(builder.snapshot)).cycles.first?.elements ?? []
    #expect(elements.map(\.kind) == [.closureContext, .closureContext])
    #expect(RetainCycle.Element(objectID: 1, typeName: "box<Int>", reference: nil).kind == .box)
    #expect(RetainCycle.Element(objectID: 1, typeName: "box<Int>", kind: .classInstance, reference: nil).kind == .classInstance)
  }
}
