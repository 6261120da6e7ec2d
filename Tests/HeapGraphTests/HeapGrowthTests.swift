import HeapGraph
import LeakTestSupport
import XCTest

/// Growth over a series of snapshots of a server-like program: a cache of every response, a
/// handler appended per request, a task per request kept by the runtime, and a leaked cycle per
/// request grow; a bounded cache, a lazily made singleton and transient work do not.
final class HeapGrowthTests: XCTestCase {
  private static let package = "/src/app"

  private static func frame(_ symbol: String, line: Int) -> StackFrame {
    StackFrame(symbol: symbol, file: package + "/Sources/App/Server.swift", line: line)
  }

  /// The heap after `round` requests (1…), with object ids shuffled by `seed`.
  private func snapshot(after round: Int, bounded: Int = 3, transient: Int? = nil) -> HeapSnapshot {
    var builder = HeapSnapshot.Builder(metadata: .init(process: "Server (pid 42)"))
    builder.addStack(id: 1, frames: [Self.frame("App.Server.handle(path: Swift.String) -> ()", line: 12)])
    builder.addStack(id: 2, frames: [Self.frame("App.Server.subscribe() -> ()", line: 20)])
    builder.addStack(id: 3, frames: [Self.frame("App.Server.spawn() -> ()", line: 30)])
    builder.addStack(id: 4, frames: [Self.frame("App.Server.leak() -> ()", line: 40)])
    var next: Int64 = 1
    func add(_ type: String, size: Int, stack: Int64? = nil, kind: ObjectKind? = nil) -> Int64 {
      defer { next += 1 }
      builder.addObject(id: next, type: type, address: UInt64(next) * 0x100, size: size, stack: stack, kind: kind)
      return next
    }
    func reference(_ from: Int64, _ to: Int64, _ label: String) {
      builder.addReference(from: from, to: to, label: label, ownership: .strong)
    }
    let cache = add("App.Cache", size: 32)
    builder.addRoot(object: cache, kind: .global, label: "App.Cache.shared")
    let bus = add("App.Bus", size: 32)
    builder.addRoot(object: bus, kind: .global, label: "App.Bus.shared")
    let boundedCache = add("App.BoundedCache", size: 32)
    builder.addRoot(object: boundedCache, kind: .global, label: "App.BoundedCache.shared")
    let singleton = add("App.Config", size: 64)
    builder.addRoot(object: singleton, kind: .global, label: "App.Config.shared")
    for request in 0..<round {
      let response = add("App.Response", size: 48, stack: 1)
      let body = add("App.Body", size: 256, stack: 1)
      reference(cache, response, "entries[\"/item/\(request)\"]")
      reference(response, body, "body")
      let handler = add("closure #1 in App.Server.subscribe() -> ()", size: 24, stack: 2, kind: .closureContext)
      reference(bus, handler, "handlers[\(request)]")
      let task = add("Task", size: 120, stack: 3)
      builder.addRoot(object: task, kind: .runtime, label: "continuations[\(request)]")
      let first = add("App.Node", size: 32, stack: 4)
      let second = add("App.Node", size: 32, stack: 4)
      reference(first, second, "next")
      reference(second, first, "next")
    }
    for index in 0..<min(round, bounded) { reference(boundedCache, add("App.Entry", size: 16, stack: 1), "entries[\(index)]") }
    for index in 0..<(transient ?? (round % 2 == 0 ? 2 : 5)) {
      builder.addRoot(object: add("App.Work", size: 16), kind: .stack, label: "thread \(index)")
    }
    return builder.snapshot
  }

  private func growth(_ snapshots: [HeapSnapshot], minimumGrowingSteps: Int? = nil) -> HeapGrowth {
    let options = HeapAnalysis.Options(ownCode: OwnCode(packageDirectory: Self.package))
    return HeapGrowth(
      tallies: snapshots.map { HeapTally(analysis: HeapAnalysis(graph: ObjectGraph($0), options: options)) },
      minimumGrowingSteps: minimumGrowingSteps)
  }

  func testGrowingPaths_leakAndTasks_areNamedOnceWithTheirCountsBytesAndLines() throws {
    let growth = growth((1...5).map { snapshot(after: $0) })
    let byPath = Dictionary(uniqueKeysWithValues: growth.findings.map { ($0.summary, $0) })
    XCTAssertEqual(
      Set(byPath.keys),
      [
        "global App.Cache.shared: App.Cache.entries[*] -> App.Response",
        "global App.Bus.shared: App.Bus.handlers[*] -> closure #1 in App.Server.subscribe() -> ()",
        "runtime continuations[*]: Task",
        "App.Node.next -> App.Node.next -> App.Node",
      ], "the bounded cache, the singleton, transient work and each response's body (held by the response) are not listed")
    let responses = try XCTUnwrap(byPath["global App.Cache.shared: App.Cache.entries[*] -> App.Response"])
    XCTAssertEqual(responses.counts, [2, 4, 6, 8, 10], "each response with the body it holds")
    XCTAssertEqual(responses.bytes, [304, 608, 912, 1216, 1520], "a response with the body it holds")
    XCTAssertEqual(responses.holds, [HeapGrowth.Finding.Held(typeName: "App.Body", counts: [1, 2, 3, 4, 5])])
    XCTAssertEqual(responses.growing, HeapFinding.Link(typeName: "App.Cache", reference: "entries[*]"))
    XCTAssertEqual(responses.addedAt.map { "\($0.site.line ?? 0) \($0.count)" }, ["12 8"], "the responses' and their bodies' line")
    let leak = try XCTUnwrap(byPath["App.Node.next -> App.Node.next -> App.Node"])
    XCTAssertEqual(leak.kind, .leak)
    XCTAssertEqual(leak.counts, [1, 2, 3, 4, 5])
    XCTAssertEqual(leak.addedAt.first?.site.line, 40)
    XCTAssertEqual(byPath["runtime continuations[*]: Task"]?.growing, nil, "the root holds the tasks itself")
    XCTAssertEqual(growth.growingTypes.first?.counts.count, 5)
  }

  func testSteadyAndSawToothSeries_reportNothing() {
    // Rounds 3, 3, 3: the cache and its neighbours stay; the bounded cache is full.
    let growth = growth([snapshot(after: 3), snapshot(after: 3), snapshot(after: 3)])
    XCTAssertFalse(growth.hasGrowth, "\(growth.findings.map(\.summary))")
    XCTAssertTrue(growth.renderText(snapshots: ["a", "b", "c"]).contains("Nothing grew in every step over 3 snapshots (a … c)."))
  }

  func testOneNoisyStep_isReportedOnlyWithAWeakerRule() {
    // Requests 1, 2, 2, 3: one step without growth.
    let snapshots = [1, 2, 2, 3].map { snapshot(after: $0) }
    XCTAssertFalse(growth(snapshots).findings.contains { $0.summary.contains("Cache.entries") })
    let lenient = growth(snapshots, minimumGrowingSteps: 2)
    XCTAssertTrue(lenient.findings.contains { $0.summary.contains("Cache.entries") })
    XCTAssertTrue(lenient.renderText(snapshots: []).contains("grew in at least 2 of 3 steps"))
  }

  func testTextAndJSONReports() throws {
    // Three rounds: the bounded cache (three entries) is still filling, so it grows too.
    let growth = growth((1...3).map { snapshot(after: $0) })
    let text = growth.renderText(snapshots: ["s1.json", "s2.json", "s3.json"])
    XCTAssertTrue(text.contains("Growth over 3 snapshots (s1.json … s3.json): 5 things grew in every step"), text)
    XCTAssertTrue(text.contains("global App.Cache.shared: Cache.entries[*] → Response"), text)
    XCTAssertTrue(text.contains("objects 2 -> 4 -> 6 (+2 per step), bytes +304 per step"), text)
    XCTAssertTrue(text.contains("growing: Cache.entries[*]"), text)
    XCTAssertTrue(text.contains("holds: Body 1 -> 2 -> 3"), text)
    XCTAssertTrue(text.contains("added at Server.handle(path:) (Server.swift:12): 4 objects"), text)
    assertMatchesGolden(growth.renderJSON(snapshots: ["s1.json", "s2.json", "s3.json"]), named: "growth-report.json")
    assertMatchesGolden(text, named: "growth-report.txt")
    assertMatchesGolden(growth.renderMarkdown(snapshots: ["s1.json", "s2.json", "s3.json"]), named: "growth-report.md")
    let html = growth.renderHTML(snapshots: ["s1.json", "s2.json", "s3.json"])
    XCTAssertEqual(html.components(separatedBy: "<article class=\"finding growth\"").count - 1, 5)
    XCTAssertTrue(html.contains(#"aria-label="counts 1, 2, 3""#), "each finding's counts drawn")
    XCTAssertTrue(html.contains("<p>Holds: Body 1 → 2 → 3</p>"), "what each response holds")
  }

  /// After `round` rounds: a handler per round that captures a new listener, kept by a global
  /// registry, and a task per round that nothing can resume (leaked), keeping a worker.
  private func snapshotOfHandlersAndTasks(after round: Int) -> HeapSnapshot {
    var builder = HeapSnapshot.Builder()
    builder.addStack(id: 1, frames: [Self.frame("closure #1 in App.Server.subscribe() -> ()", line: 20)])
    builder.addStack(id: 2, frames: [Self.frame("App.Server.subscribe() -> ()", line: 19)])
    builder.addStack(id: 3, frames: [Self.frame("App.Server.spawn() -> ()", line: 30)])
    builder.addStack(id: 4, frames: [Self.frame("App.Server.spawn() -> ()", line: 29)])
    builder.addStack(id: 5, frames: [Self.frame("closure #1 in App.Server.spawn() -> ()", line: 31)])
    builder.addObject(id: 1, type: "App.Registry", address: 0x1000, size: 32)
    builder.addRoot(object: 1, kind: .global, label: "App.registry")
    for index in 0..<round {
      let base = Int64(10 * (index + 1))
      func add(_ offset: Int64, _ type: String, size: Int?, stack: Int64?, kind: ObjectKind) {
        builder.addObject(
          id: base + offset, type: type, address: size == nil ? nil : UInt64(base + offset) * 0x100, size: size, stack: stack, kind: kind)
      }
      add(0, "closure #1 in App.Server.subscribe() -> ()", size: 32, stack: 1, kind: .closureContext)
      add(1, "App.Listener", size: 48, stack: 2, kind: .classInstance)
      builder.addReference(from: 1, to: base, label: "handlers[\(index)]", ownership: .strong)
      builder.addReference(from: base, to: base + 1, label: "listener", ownership: .strong)
      add(2, "Task", size: 200, stack: 3, kind: .task)
      add(3, "closure #1 in App.Server.spawn() -> ()", size: 32, stack: 3, kind: .closureContext)
      add(4, "App.Worker", size: 64, stack: 4, kind: .classInstance)
      add(5, SuspensionPoint.typeName(function: "closure #1 in App.Server.spawn() -> ()"), size: nil, stack: 5, kind: .closureContext)
      builder.addReference(from: base + 2, to: base + 3, label: "closure", ownership: .strong)
      builder.addReference(from: base + 3, to: base + 4, label: "worker", ownership: .strong)
      builder.addReference(from: base + 2, to: base + 5, label: SuspensionPoint.taskEdgeLabel, ownership: .strong)
    }
    return builder.snapshot
  }

  func testClosureAndTaskPerRound_nameWhatEachHolds_countItAndGiveItsLines() throws {
    let growth = growth((1...4).map { snapshotOfHandlersAndTasks(after: $0) })
    let byPath = Dictionary(uniqueKeysWithValues: growth.findings.map { ($0.summary, $0) })
    let handlers = try XCTUnwrap(byPath["global App.registry: App.Registry.handlers[*] -> closure #1 in App.Server.subscribe() -> ()"])
    XCTAssertEqual(handlers.holds, [HeapGrowth.Finding.Held(typeName: "App.Listener", counts: [1, 2, 3, 4])])
    XCTAssertEqual(handlers.counts, [2, 4, 6, 8], "each closure with the listener it captures")
    XCTAssertEqual(handlers.bytes, [80, 160, 240, 320])
    XCTAssertEqual(handlers.addedAt.map { $0.site.line ?? 0 }.sorted(), [19, 20], "the listener's line and the closure's")
    let tasks = try XCTUnwrap(byPath["Task.suspended → await in closure #1 in App.Server.spawn() -> ()"], "\(byPath.keys)")
    XCTAssertEqual(tasks.kind, .leak)
    XCTAssertEqual(tasks.counts, [1, 2, 3, 4])
    XCTAssertEqual(
      tasks.holds,
      [
        HeapGrowth.Finding.Held(typeName: "App.Worker", counts: [1, 2, 3, 4]),
        HeapGrowth.Finding.Held(typeName: "closure #1 in App.Server.spawn() -> ()", counts: [1, 2, 3, 4]),
      ])
    XCTAssertEqual(tasks.bytes, [296, 592, 888, 1184], "each task with its closure and worker")
    XCTAssertEqual(tasks.addedAt.first?.site.line, 30, "the line that made the task")
    let text = growth.renderText(snapshots: [])
    XCTAssertTrue(text.contains("holds: Listener 1 -> 2 -> 3 -> 4\n"), text)
    XCTAssertTrue(text.contains("leaked: Task.suspended → await in closure #1 in Server.spawn()\n"), text)
    XCTAssertTrue(text.contains("holds: Worker 1 -> 2 -> 3 -> 4, closure #1 in Server.spawn() 1 -> 2 -> 3 -> 4\n"), text)
    XCTAssertTrue(growth.renderMarkdown(snapshots: []).contains("(holds Listener 1 → 2 → 3 → 4)"))
    XCTAssertTrue(growth.renderJSON(snapshots: []).contains(#""holds": [{"type": "App.Listener", "counts": [1, 2, 3, 4]}]"#))
  }

  /// A cache of values (no objects of their own) grows in its owner's size; a cache of objects
  /// whose dictionary grows with its entries is reported by its entries; a handler list of
  /// thunks (no source line) names the line that made what the thunks hold.
  func testGrowthInSize_andLinesBelowAThunk() throws {
    func snapshot(_ round: Int) -> HeapSnapshot {
      var builder = HeapSnapshot.Builder()
      builder.addStack(id: 1, frames: [Self.frame("App.Server.handle() -> ()", line: 12)])
      builder.addStack(id: 2, frames: [StackFrame(symbol: "reabstraction thunk", file: "<compiler-generated>")])
      builder.addObject(id: 1, type: "App.ValueCache", address: 0x1000, size: 64 + 100 * round)
      builder.addRoot(object: 1, kind: .global, label: "App.values")
      builder.addObject(id: 2, type: "App.Cache", address: 0x2000, size: 64 + 50 * round)
      builder.addRoot(object: 2, kind: .global, label: "App.cache")
      builder.addObject(id: 3, type: "App.Bus", address: 0x3000, size: 32)
      builder.addRoot(object: 3, kind: .global, label: "App.bus")
      for index in 0..<round {
        let entry = Int64(100 + index)
        let thunk = Int64(200 + index)
        let payload = Int64(300 + index)
        builder.addObject(id: entry, type: "App.Response", address: UInt64(entry) * 0x100, size: 48, stack: 1)
        builder.addReference(from: 2, to: entry, label: "entries[\(index)]", ownership: .strong)
        builder.addObject(
          id: thunk, type: "reabstraction thunk of closure #1 in App.subscribe()", address: UInt64(thunk) * 0x100, size: 32,
          stack: 2, kind: .closureContext)
        builder.addReference(from: 3, to: thunk, label: "handlers[\(index)]", ownership: .strong)
        builder.addObject(id: payload, type: "App.Payload", address: UInt64(payload) * 0x100, size: 24, stack: 1)
        builder.addReference(from: thunk, to: payload, label: "capture #0", ownership: .strong)
      }
      return builder.snapshot
    }
    let byPath = Dictionary(uniqueKeysWithValues: growth((1...4).map(snapshot)).findings.map { ($0.summary, $0) })
    XCTAssertEqual(
      Set(byPath.keys),
      [
        "global App.values: App.ValueCache", "global App.cache: App.Cache.entries[*] -> App.Response",
        "global App.bus: App.Bus.handlers[*] -> reabstraction thunk of closure #1 in App.subscribe()",
      ])
    let values = try XCTUnwrap(byPath["global App.values: App.ValueCache"])
    XCTAssertTrue(values.growsInSize)
    XCTAssertEqual(values.counts, [1, 1, 1, 1])
    XCTAssertEqual(values.growing, HeapFinding.Link(typeName: "App.ValueCache", reference: nil))
    let handlers = try XCTUnwrap(byPath["global App.bus: App.Bus.handlers[*] -> reabstraction thunk of closure #1 in App.subscribe()"])
    XCTAssertEqual(handlers.addedAt.first?.site.line, 12, "the payloads' line, below the thunks")
  }
}
