import HeapGraph
import XCTest

/// Tasks that nothing can resume, as a capture records them (no root reaches the task: its
/// resumer's retain was not made a root), on synthetic graphs: each is a leak group of its own,
/// named by where it waits, with what its closure keeps alive.
final class LeakedTaskTests: XCTestCase {
  /// A snapshot with a task per entry of `waits` (the function it waits in), each with a closure
  /// that captures a payload and a suspension point; `rooted` tasks are held by a global.
  private func heap(waits: [String], rooted: Set<Int> = []) -> ObjectGraph {
    var builder = HeapSnapshot.Builder()
    builder.addStack(id: 1, frames: [StackFrame(symbol: "App.start()", file: "App.swift", line: 10)])
    builder.addStack(id: 2, frames: [StackFrame(symbol: "closure #1 in App.start()", file: "App.swift", line: 11)])
    for (index, function) in waits.enumerated() {
      let base = Int64(index * 10 + 1)
      builder.addObject(id: base, type: "Task", address: UInt64(0x1000 + index * 0x100), stack: 1, kind: .task)
      builder.addObject(id: base + 1, type: "closure #1 in \(function)", address: UInt64(0x1040 + index * 0x100), kind: .closureContext)
      builder.addObject(id: base + 2, type: "App.Payload", address: UInt64(0x1080 + index * 0x100), size: 32, kind: .classInstance)
      builder.addObject(
        id: base + 3, type: SuspensionPoint.typeName(function: "closure #1 in \(function)"), stack: 2, kind: .closureContext)
      builder.addReference(from: base, to: base + 1, label: "closure", ownership: .strong)
      builder.addReference(from: base + 1, to: base + 2, label: "payload", ownership: .strong)
      builder.addReference(from: base, to: base + 3, label: SuspensionPoint.taskEdgeLabel, ownership: .strong)
      if rooted.contains(index) { builder.addRoot(object: base, kind: .global, label: "App.kept") }
    }
    builder.addObject(id: 1000, type: "App.Main", address: 0x9000, kind: .classInstance)
    builder.addRoot(object: 1000, kind: .global, label: "App.main")
    return ObjectGraph(builder.snapshot)
  }

  func testLeakedTasks_waitingInDifferentFunctions_areTwoGroups_namedByWhereTheyWait() {
    let groups = LeakAnalysis(graph: heap(waits: ["App.first()", "App.second()"])).leakGroups
    XCTAssertEqual(
      groups.map(\.summary).sorted(),
      ["Task.suspended → await in closure #1 in App.first()", "Task.suspended → await in closure #1 in App.second()"])
    XCTAssertEqual(groups.map(\.objectCount), [3, 3], "the task, its closure and its payload")
    XCTAssertNotEqual(groups[0].fingerprint, groups[1].fingerprint)
  }

  func testLeakedTasks_waitingInOneFunction_areOneGroupOfTwo() {
    let groups = LeakAnalysis(graph: heap(waits: ["App.first()", "App.first()"])).leakGroups
    XCTAssertEqual(groups.map(\.instanceCount), [2])
    XCTAssertEqual(groups.first?.summary, "Task.suspended → await in closure #1 in App.first()")
  }

  func testTaskARootHolds_isNoLeak_andKeepsNothingAliveThatIsLeaked() {
    let graph = heap(waits: ["App.first()"], rooted: [0])
    let analysis = HeapAnalysis(graph: graph)
    XCTAssertEqual(analysis.leaks.leakGroups.count, 0)
    XCTAssertEqual(WaitingTask.keptAlive(byTask: 0, in: analysis), [:])
  }

  func testLeakedTask_keepsAliveItsClosureAndWhatItCaptures() throws {
    let graph = heap(waits: ["App.first()"])
    let analysis = HeapAnalysis(graph: graph)
    let task = try XCTUnwrap(graph.node(forObjectID: 1))
    XCTAssertEqual(WaitingTask.keptAlive(byTask: task, in: analysis), ["App.Payload": 1, "closure #1 in App.first()": 1])
  }

  func testLeakedTaskFinding_linksTheTaskToWhereItWaits_andReadsAsAChain() throws {
    let graph = heap(waits: ["App.first()"])
    let finding = try XCTUnwrap(HeapAnalysis(graph: graph).findings.first { $0.kind == .leak })
    XCTAssertEqual(
      finding.links,
      [
        HeapFinding.Link(typeName: "Task", reference: "suspended"),
        HeapFinding.Link(typeName: "await in closure #1 in App.first()", reference: nil),
      ])
    let names = NameStyle.readable(forTypeNames: finding.links.map(\.typeName))
    XCTAssertEqual(names.leak(finding.links, summary: finding.summary), "Task.suspended → await in closure #1 in first()")
  }
}
