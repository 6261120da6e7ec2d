import Foundation
import HeapGraph
import LeakDetectorTesting
import LeakTestSupport
import XCTest

/// Test cases run programmatically by the tests below: each tracks one of the hidden-owner
/// snippets; `stops` breaks the strong variants' cycles once the check has run.
final class HiddenOwnerCases: XCTestCase {
  nonisolated(unsafe) static var stops: [() -> Void] = []
  nonisolated(unsafe) static var trackedLine = 0

  override func perform(_ run: XCTestRun) { performNested(run) }

  func track<Owner: AnyObject>(_ owner: Owner, start: (Owner) -> Void, stop: @escaping (Owner) -> Void) {
    HiddenOwnerCases.trackedLine = #line + 1
    trackForLeaks(owner, configuration: fastConfiguration)
    start(owner)
    HiddenOwnerCases.stops.append { [weak owner] in owner.map(stop) }
  }
}

final class HiddenOwnerLeakCheckTests: XCTestCase {
  override func tearDown() {
    HiddenOwnerCases.stops.forEach { $0() }
    HiddenOwnerCases.stops.removeAll()
  }

  /// The findings of one test that tracks `owner`, started by `start`.
  private func check<Owner: AnyObject>(
    _ make: @escaping () -> Owner, start: @escaping (Owner) -> Void, stop: @escaping (Owner) -> Void
  ) -> [LeakFinding] {
    let collector = FindingCollector()
    withLeakReporter(collector.reporter) {
      let testCase = HiddenOwnerCases(name: "hiddenOwner") {
        ($0 as! HiddenOwnerCases).track(make(), start: start, stop: stop)
      }
      testCase.run()
    }
    return collector.findings.map(\.finding)
  }

  /// Asserts that the strong variant fails with a cycle through `edges` (`Type.label -> Type`,
  /// wherever the cycle's rotation starts) and the closure at `closureLine`, and that the weak
  /// variant passes.
  private func assertCycleThrough(
    through edges: [String], closureLine: () -> Int, strong: [LeakFinding], weak: [LeakFinding],
    file: StaticString = #filePath, line: UInt = #line
  ) {
    XCTAssertEqual(strong.count, 1, file: file, line: line)
    XCTAssertEqual(weak.map(\.description), [], file: file, line: line)
    guard let finding = strong.first else { return }
    let text = finding.description
    XCTAssertEqual(finding.kind, .leaked, file: file, line: line)
    XCTAssertFalse(finding.cycles.isEmpty, text, file: file, line: line)
    if ProcessInfo.processInfo.environment["LEAK_DETECTOR_SHOW_FAILURE"] == "1" { print(text) }
    for edge in edges {
      XCTAssertTrue(text.contains(edge), "the cycle goes through \(edge): \(text)", file: file, line: line)
    }
    #if DEBUG
      XCTAssertTrue(
        text.contains(" written at HiddenOwnerSnippets.swift:\(closureLine())"), "the closure's line is given: \(text)", file: file,
        line: line)
    #else
      // Optimized code: a closure whose entry has no row in the line table is named without its
      // line (the task's and the observer's closures have one, the source's and work item's not).
      if text.contains(" written at ") {
        XCTAssertTrue(
          text.contains(" written at HiddenOwnerSnippets.swift:"), "the closure's file is given: \(text)", file: file, line: line)
      }
    #endif
  }

  func testTask_strongCaptureFailsThroughTheTask_weakPasses() {
    assertCycleThrough(
      through: ["StreamCounter.task._task → Task", "Task.closure → closure #2 in", ".capture #2: StreamCounter → StreamCounter"],
      closureLine: { StreamCounter.closureLine },
      strong: check(StreamCounter.init, start: { $0.start(weakly: false) }, stop: { $0.stop() }),
      weak: check(StreamCounter.init, start: { $0.start(weakly: true) }, stop: { $0.stop() }))
  }

  func testDispatchSource_strongCaptureFailsThroughTheHandler_weakPasses() throws {
    try skipWhereThreadSanitizerWrapsDispatchBlocks()
    assertCycleThrough(
      through: [
        "Ticker.source → Dispatch.DispatchSource", "DispatchSource.event handler → closure #2 in",
        ".capture #0: Ticker → Ticker",
      ],
      closureLine: { Ticker.closureLine },
      strong: check(Ticker.init, start: { $0.start(weakly: false) }, stop: { $0.stop() }),
      weak: check(Ticker.init, start: { $0.start(weakly: true) }, stop: { $0.stop() }))
  }

  func testNotificationObserver_strongCaptureFailsThroughTheBlock_weakPasses() {
    assertCycleThrough(
      through: [
        "HitCounter.token → FoundationEssentials.NotificationCenter._NSNotificationObserverToken",
        "_NSNotificationObserverToken.registration → closure #1 in closure #2 in FoundationEssentials.NotificationCenter._addObserver",
        "→ closure #2 in HitCounter.start(weakly:).capture #0: HitCounter → HitCounter",
      ],
      closureLine: { HitCounter.closureLine },
      strong: check(HitCounter.init, start: { $0.start(weakly: false) }, stop: { $0.stop() }),
      weak: check(HitCounter.init, start: { $0.start(weakly: true) }, stop: { $0.stop() }))
  }

  func testWorkItem_strongCaptureFailsThroughTheBlock_weakPasses() {
    assertCycleThrough(
      through: [
        "Incrementer.item → Dispatch.DispatchWorkItem", "DispatchWorkItem.block → closure #2 in",
        ".capture #0: Incrementer → Incrementer",
      ],
      closureLine: { Incrementer.closureLine },
      strong: check(Incrementer.init, start: { $0.start(weakly: false) }, stop: { $0.stop() }),
      weak: check(Incrementer.init, start: { $0.start(weakly: true) }, stop: { $0.stop() }))
  }

  /// Scheduled, not leaked: the finding names the pending block and the closure's line.
  func testAsyncAfter_objectHeldByAPendingBlock_isNamedAsHeldByIt() throws {
    try skipWhereThreadSanitizerWrapsDispatchBlocks()
    let findings = check(Reminder.init, start: { $0.remindInAnHour() }, stop: { _ in })
    let finding = try XCTUnwrap(findings.first)
    let text = finding.description
    XCTAssertEqual(findings.count, 1)
    XCTAssertTrue(finding.cycles.isEmpty, text)
    XCTAssertTrue(
      text.contains(
        "it is retained through:\n  closure #1 in Reminder.remindInAnHour().capture #0: Reminder → Reminder\n"), text)
    XCTAssertTrue(text.contains(" is held by a block asyncAfter scheduled, not yet run\n"), text)
    #if DEBUG
      XCTAssertTrue(
        text.contains("where closure #1 in Reminder.remindInAnHour() (HiddenOwnerSnippets.swift:\(Reminder.closureLine))"),
        text)
    #endif
  }

  /// Asserts that the object a holder keeps is the one finding, with no cycle, retained through
  /// `path` from the holder `heldBy`, and (debug) the closure's line given; and that the weak
  /// variant passes.
  private func assertHeldBy(
    _ heldBy: String, path: String, closureLine: () -> Int, strong: [LeakFinding], weak: [LeakFinding],
    file: StaticString = #filePath, line: UInt = #line
  ) {
    XCTAssertEqual(strong.count, 1, file: file, line: line)
    XCTAssertEqual(weak.map(\.description), [], file: file, line: line)
    guard let finding = strong.first else { return }
    let text = finding.description
    if ProcessInfo.processInfo.environment["LEAK_DETECTOR_SHOW_FAILURE"] == "1" { print(text) }
    XCTAssertTrue(finding.cycles.isEmpty, text, file: file, line: line)
    XCTAssertTrue(text.contains("it is retained through:\n  \(path)\n"), text, file: file, line: line)
    XCTAssertTrue(text.contains(" is held by \(heldBy)\n"), text, file: file, line: line)
    #if DEBUG
      XCTAssertTrue(
        text.contains("HiddenOwnerSnippets.swift:\(closureLine())"), "the closure's line is given: \(text)", file: file, line: line)
    #endif
  }

  /// The same when the closure captures a value too (its context is an object the check's walk
  /// does not reach from the reminder).
  func testAsyncAfter_closureCapturingAValueToo_isNamedAsHeldByItsBlock() throws {
    try skipWhereThreadSanitizerWrapsDispatchBlocks()
    let findings = check(Reminder.init, start: { $0.remindInAnHour(adding: 2) }, stop: { _ in })
    let text = findings.first?.description ?? ""
    XCTAssertEqual(findings.count, 1)
    XCTAssertTrue(text.contains(" is held by a block asyncAfter scheduled, not yet run\n"), text)
    XCTAssertTrue(text.contains("closure #1 in Reminder.remindInAnHour(adding:).capture #0: Reminder"), text)
    #if DEBUG
      XCTAssertTrue(text.contains("HiddenOwnerSnippets.swift:\(Reminder.closureLine))"), text)
    #endif
  }

  func testSleepingTask_objectItsClosureCaptures_isNamedAsHeldByTheTask() throws {
    try skipWhereThreadSanitizerWrapsDispatchBlocks()
    nonisolated(unsafe) var tasks: [Task<Void, Never>] = []
    defer { tasks.forEach { $0.cancel() } }
    let start = { (napper: Napper, weakly: Bool) in
      let task = napper.napForAnHour(weakly: weakly)
      tasks.append(task)
      eventually { isAsleep(task) }
    }
    assertHeldBy(
      "the timer of Task.sleep, until the task wakes",
      path: "Task.closure → closure #2 in Napper.napForAnHour(weakly:).capture #1: Napper → Napper",
      closureLine: { Napper.closureLine },
      strong: check(Napper.init, start: { start($0, false) }, stop: { _ in }),
      weak: check(Napper.init, start: { start($0, true) }, stop: { _ in }))
  }

  func testScheduledTimer_objectItsBlockCaptures_isNamedAsHeldByTheRunLoop() {
    assertHeldBy(
      "the main run loop, until the timer is invalidated",
      path: "Foundation.Timer._fire → closure #2 in Metronome.start(weakly:).capture #0: Metronome → Metronome",
      closureLine: { Metronome.closureLine },
      strong: check(Metronome.init, start: { $0.start(weakly: false) }, stop: { $0.stop() }),
      weak: check(Metronome.init, start: { $0.start(weakly: true) }, stop: { $0.stop() }))
  }
}

final class WaitingTaskLeakCheckTests: XCTestCase {
  /// The findings of one test that tracks a `StreamTotal` and counts a stream into it. The
  /// stream's continuation is kept here, out of the capture's sight (a stack is not one of its
  /// roots), and finished after the check: to the check, the test dropped it.
  private func findings(finishing: Bool) -> [LeakFinding] {
    let collector = FindingCollector()
    var continuations: [AsyncStream<Int>.Continuation] = []
    withLeakReporter(collector.reporter) {
      let testCase = HiddenOwnerCases(name: "hiddenOwner") {
        ($0 as! HiddenOwnerCases).track(
          StreamTotal(), start: { continuations.append(countAStream(into: $0, finishing: finishing)) }, stop: { _ in })
      }
      testCase.run()
    }
    continuations.forEach { $0.finish() }
    return collector.findings.map(\.finding)
  }

  func testTaskWaitingOnAStreamNobodyFeeds_isNamedWithWhereItWaitsAndWhatCouldResumeIt() throws {
    let findings = findings(finishing: false)
    XCTAssertEqual(findings.count, 1)
    let finding = try XCTUnwrap(findings.first)
    let text = finding.description
    XCTAssertEqual(finding.kind, .leaked, text)
    XCTAssertTrue(finding.cycles.isEmpty, text)
    XCTAssertTrue(
      text.contains("  Task.closure → closure #1 in countAStream(into:finishing:).capture #2: StreamTotal → StreamTotal\n"), text)
    XCTAssertTrue(text.contains("  where Task is itself leaked"), text)
    let task = try XCTUnwrap(finding.waitingTask, text)
    XCTAssertEqual(task.waitsIn, "closure #1 in LeakTestSupport.countAStream(into: StreamTotal, finishing: Bool)")
    XCTAssertEqual(task.heldBy, ["Swift.AsyncStream<Swift.Int>._Storage<>.state.continuations[0].context"])
    XCTAssertTrue(
      text.contains("resumed only through AsyncStream<Int>._Storage<>.state.continuations[0].context, which the task itself reaches"), text)
    #if DEBUG
      XCTAssertEqual(task.waitsAt?.file.map { ($0 as NSString).lastPathComponent }, "HiddenOwnerSnippets.swift", text)
      XCTAssertEqual(task.waitsAt?.line, StreamTotal.taskLine, text)
    #endif
    XCTAssertTrue(
      text.hasSuffix(
        "End the task when the test ends: finish or resume what it waits on, or cancel it; or allow it (LeakCheckConfiguration.allowedReferences) if that is by design."
      ), text)
  }

  func testTaskOnAFinishedStream_ends_andNothingIsReported() {
    XCTAssertEqual(findings(finishing: true).map(\.description), [])
  }
}
