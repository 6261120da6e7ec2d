import Foundation
import HeapGraph
import LeakTestSupport
import XCTest

/// What holds the memory, on synthetic heaps whose retained sizes are known by construction.
final class HeapMemoryTests: XCTestCase {
  /// A global cache of 1,000 responses, each with a 200-byte body; a global app whose settings
  /// hold a little; a leaked pair.
  private func cacheHeap(responses: Int = 1_000) -> HeapSnapshot {
    var builder = HeapSnapshot.Builder()
    builder.addStack(
      id: 1, frames: [StackFrame(pc: 0x10, symbol: "App.Cache.fill() -> ()", file: "/src/App/Cache.swift", line: 12)])
    builder.addObject(id: 1, type: "App.Cache", size: 48)
    builder.addRoot(object: 1, kind: .global, label: "Cache.shared")
    for index in 0..<responses {
      let response = Int64(10 + 2 * index)
      builder.addObject(id: response, type: "App.Response", size: 32, stack: 1)
      builder.addObject(id: response + 1, type: "Swift.__StringStorage", size: 200)
      builder.addReference(from: 1, to: response, label: "entries[\(index)]", ownership: .strong)
      builder.addReference(from: response, to: response + 1, label: "body", ownership: .strong)
    }
    // The cache's lock: one per cache, as many as caches, but not where the memory is.
    builder.addObject(id: 6, type: "App.Lock", size: 16)
    builder.addReference(from: 1, to: 6, label: "lock", ownership: .strong)
    builder.addObject(id: 2, type: "App.App", size: 64)
    builder.addRoot(object: 2, kind: .global, label: "App.shared")
    builder.addObject(id: 3, type: "App.Settings", size: 96)
    builder.addReference(from: 2, to: 3, label: "settings", ownership: .strong)
    builder.addReference(from: 3, to: 1, label: "cache", ownership: .weak)
    builder.addObject(id: 4, type: "App.Owner", size: 16)
    builder.addObject(id: 5, type: "App.Pet", size: 16)
    builder.addReference(from: 4, to: 5, label: "pet", ownership: .strong)
    builder.addReference(from: 5, to: 4, label: "owner", ownership: .strong)
    return builder.snapshot
  }

  func testCache_itsEntriesPathIsTheTopRetainer_withCountBytesAndSite() {
    let memory = HeapMemory(analysis: HeapAnalysis(graph: ObjectGraph(cacheHeap())))
    XCTAssertEqual(memory.objectCount, 2_006)
    XCTAssertEqual(memory.byteCount, 48 + 16 + 1_000 * 232 + 64 + 96 + 32)
    XCTAssertEqual(memory.leakedBytes, 32)
    let top = try! XCTUnwrap(memory.retainers.first)
    XCTAssertEqual(top.path.description, "global Cache.shared: App.Cache.entries[*] -> App.Response")
    XCTAssertEqual(top.objectCount, 1_000)
    XCTAssertEqual(top.retainedBytes, 1_000 * 232)
    XCTAssertEqual(top.retainedObjects, 2_000)
    XCTAssertEqual(top.sites.map { "\($0.site.line ?? 0) \($0.count)" }, ["12 1000"])
    // The cache's own path passes through to its entries (its lock is not where its memory is);
    // the bodies are inside the responses.
    XCTAssertEqual(
      memory.retainers.map(\.path.description),
      [
        "global Cache.shared: App.Cache.entries[*] -> App.Response",
        "global App.shared: App.App",
        "global Cache.shared: App.Cache.lock -> App.Lock",
      ])
    XCTAssertEqual(memory.retainers[1].retainedBytes, 160)
  }

  func testCache_suspectIsTheCacheObject_accumulatingInItsEntries() {
    let memory = HeapMemory(analysis: HeapAnalysis(graph: ObjectGraph(cacheHeap())))
    XCTAssertEqual(memory.suspects.count, 1)
    let suspect = memory.suspects[0]
    XCTAssertEqual(suspect.kind, .object)
    XCTAssertEqual(suspect.path.description, "global Cache.shared: App.Cache")
    XCTAssertEqual(suspect.retainedBytes, 48 + 16 + 1_000 * 232)
    XCTAssertEqual(suspect.accumulation?.path.description, "global Cache.shared: App.Cache.entries[*] -> App.Response")
    XCTAssertEqual(suspect.accumulation?.objectCount, 1_000)
    XCTAssertEqual(suspect.accumulation?.retainedBytes, 1_000 * 232)
  }

  func testHistogram_retainedBytesCountNestedInstancesOnce() {
    var builder = HeapSnapshot.Builder()
    // A linked list of 10 nodes of 16 bytes: the head retains the list; the type retains it once.
    for id in 1...10 as ClosedRange<Int64> {
      builder.addObject(id: id, type: "Node", size: 16)
      if id > 1 { builder.addReference(from: id - 1, to: id, label: "next", ownership: .strong) }
    }
    builder.addRoot(object: 1, kind: .global, label: "head")
    let memory = HeapMemory(analysis: HeapAnalysis(graph: ObjectGraph(builder.snapshot)))
    XCTAssertEqual(memory.types.map(\.typeName), ["Node"])
    XCTAssertEqual(memory.types[0].objectCount, 10)
    XCTAssertEqual(memory.types[0].shallowBytes, 160)
    XCTAssertEqual(memory.types[0].retainedBytes, 160)
  }

  func testSharedObjects_countInNoSingleHoldersRetainedSize() {
    var builder = HeapSnapshot.Builder()
    builder.addObject(id: 1, type: "A", size: 10)
    builder.addObject(id: 2, type: "B", size: 10)
    builder.addObject(id: 3, type: "Shared", size: 1_000)
    builder.addRoot(object: 1, kind: .global, label: "a")
    builder.addRoot(object: 2, kind: .global, label: "b")
    builder.addReference(from: 1, to: 3, label: "x", ownership: .strong)
    builder.addReference(from: 2, to: 3, label: "y", ownership: .strong)
    let memory = HeapMemory(analysis: HeapAnalysis(graph: ObjectGraph(builder.snapshot)))
    XCTAssertEqual(memory.types.first { $0.typeName == "A" }?.retainedBytes, 10)
    // The shared object is on A's shortest path, but A does not retain it.
    XCTAssertEqual(memory.retainers.first?.path.description, "global a: A.x -> Shared")
    XCTAssertEqual(memory.retainers.first?.retainedBytes, 1_000)
    // 1,000 bytes are most of the heap, but too few to suspect.
    XCTAssertEqual(memory.suspects, [])
  }

  func testCollectionSuspect_manyObjectsOfOneTypeWithoutOneHolder() {
    var builder = HeapSnapshot.Builder()
    // 200 sessions in a registry that two roots share: no single object retains them.
    builder.addObject(id: 1, type: "Registry", size: 16)
    builder.addRoot(object: 1, kind: .global, label: "registry")
    builder.addRoot(object: 1, kind: .stack, label: "thread 1")
    for index in 0..<200 as Range<Int64> {
      builder.addObject(id: 100 + index, type: "Session", size: 1_000)
      builder.addReference(from: 1, to: 100 + index, label: "sessions[\(index)]", ownership: .strong)
    }
    builder.addObject(id: 2, type: "Other", size: 1_000)
    builder.addRoot(object: 2, kind: .global, label: "other")
    let memory = HeapMemory(analysis: HeapAnalysis(graph: ObjectGraph(builder.snapshot)))
    XCTAssertEqual(memory.retainers.first?.path.description, "global registry: Registry.sessions[*] -> Session")
    XCTAssertTrue(
      memory.suspects.contains { $0.kind == .collection && $0.objectCount == 200 && $0.retainedBytes == 200_000 }
        || memory.suspects.contains { $0.accumulation?.objectCount == 200 }, "\(memory.suspects)")
  }

  func testSmallHeap_hasNoSuspects() {
    let memory = HeapMemory(analysis: HeapAnalysis(graph: ObjectGraph(cacheHeap(responses: 10))))
    XCTAssertEqual(memory.suspects, [])
    XCTAssertEqual(memory.retainers.first?.objectCount, 10)
  }

  /// More paths than ``HeapMemory/maximumRetainers``: those that retain most are kept, in order,
  /// and the report says how many were left out.
  func testManyPaths_keepTheLargestRetainers_andCountTheRest() throws {
    var builder = HeapSnapshot.Builder()
    let paths = HeapMemory.maximumRetainers + 5
    for index in 0..<paths {
      let id = Int64(index + 1)
      builder.addObject(id: id, type: "App.Holder", size: 16 * (index + 1))
      builder.addRoot(object: id, kind: .global, label: "App.holder\(index)")
    }
    let analysis = HeapAnalysis(graph: ObjectGraph(builder.snapshot))
    let memory = HeapMemory(analysis: analysis)
    XCTAssertEqual(memory.retainers.count, HeapMemory.maximumRetainers)
    XCTAssertEqual(memory.omittedRetainerCount, 5)
    XCTAssertEqual(memory.retainers.first?.retainedBytes, 16 * paths)
    XCTAssertEqual(memory.retainers.last?.retainedBytes, 16 * 6, "the five smallest are left out")
    let report = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(analysis.renderJSON().utf8)) as? [String: Any])
    let held = try XCTUnwrap(report["heldMemory"] as? [String: Any])
    XCTAssertEqual(held["omittedRetainers"] as? Int, 5)
    XCTAssertEqual((held["retainers"] as? [Any])?.count, HeapMemory.maximumRetainers)
  }

  func testText_cacheHeap_golden() {
    let analysis = HeapAnalysis(graph: ObjectGraph(cacheHeap()))
    assertMatchesGolden(HeapMemory(analysis: analysis).reportText(names: analysis.nameStyle).description, named: "memory-cache.txt")
  }
}
