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
      ], "the bounded cache, the singleton, transient work and each response's body (part of the response) are not listed")
    let responses = try XCTUnwrap(byPath["global App.Cache.shared: App.Cache.entries[*] -> App.Response"])
    XCTAssertEqual(responses.counts, [1, 2, 3, 4, 5])
    XCTAssertEqual(responses.bytes, [304, 608, 912, 1216, 1520], "a response with the body it holds")
    XCTAssertEqual(responses.growing, HeapFinding.Link(typeName: "App.Cache", reference: "entries[*]"))
    XCTAssertEqual(responses.addedAt.map { "\($0.site.line ?? 0) \($0.count)" }, ["12 4"])
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
    XCTAssertTrue(text.contains("objects 1 -> 2 -> 3 (+1 per step), bytes +304 per step"), text)
    XCTAssertTrue(text.contains("growing: Cache.entries[*]"), text)
    XCTAssertTrue(text.contains("added at Server.handle(path:) (Server.swift:12): 2 objects"), text)
    assertMatchesGolden(growth.renderJSON(snapshots: ["s1.json", "s2.json", "s3.json"]), named: "growth-report.json")
    assertMatchesGolden(text, named: "growth-report.txt")
    assertMatchesGolden(growth.renderMarkdown(snapshots: ["s1.json", "s2.json", "s3.json"]), named: "growth-report.md")
    let html = growth.renderHTML(snapshots: ["s1.json", "s2.json", "s3.json"])
    XCTAssertEqual(html.components(separatedBy: "<article class=\"finding growth\"").count - 1, 5)
    XCTAssertTrue(html.contains(#"aria-label="counts 1, 2, 3""#), "each finding's counts drawn")
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
