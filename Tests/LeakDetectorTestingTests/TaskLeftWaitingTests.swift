import Foundation
import LeakDetectorTesting
import LeakTestSupport
import XCTest

/// goleak's check for tasks: a task the test made that has not completed when the test ends is
/// reported, with where it was made and where it waits; a task that completes, or ends when it is
/// cancelled, is not.
final class TaskLeftWaitingTests: XCTestCase {
  private func findings(_ configuration: LeakCheckConfiguration = fastConfiguration, _ body: () -> Void) -> [LeakFinding] {
    let collector = FindingCollector()
    withLeakReporter(collector.reporter) { withLeakChecking(configuration, body) }
    return collector.findings.map(\.finding)
  }

  func testTaskWaitingOnAStreamNobodyFeeds_isReportedOnce_withWhereItWaitsAndWhatCouldResumeIt() throws {
    var continuation: AsyncStream<Int>.Continuation?
    let total = StreamTotal()
    let findings = findings { continuation = countAStream(into: total, finishing: false) }
    continuation?.finish()
    XCTAssertEqual(findings.count, 1, "\(findings.map(\.description))")
    let finding = try XCTUnwrap(findings.first)
    let text = finding.description
    XCTAssertTrue(finding.isTask, text)
    XCTAssertTrue(text.hasPrefix("A task the test made (0x"), text)
    XCTAssertTrue(text.contains(" has not completed 0.02 s after the test.\n"), text)
    XCTAssertTrue(text.contains("It waits in closure #1 in countAStream(into:finishing:)"), text)
    // The test holds the continuation, so the storage is held from outside the captured objects.
    XCTAssertTrue(text.contains("resumed through AsyncStream<Int>._Storage<>.state.continuations[0].context.\n"), text)
    #if DEBUG
      XCTAssertTrue(text.contains("It was made at countAStream(into:finishing:) (HiddenOwnerSnippets.swift:\(StreamTotal.taskLine))"), text)
      XCTAssertTrue(text.contains(" at HiddenOwnerSnippets.swift:\(StreamTotal.taskLine),"), text)
    #endif
    XCTAssertTrue(text.hasSuffix("or allow it (LeakCheckConfiguration.allowedTasks) if that is by design."), text)
  }

  func testTaskOnAFinishedStream_completes_andNothingIsReported() {
    let total = StreamTotal()
    XCTAssertEqual(findings { countAStream(into: total, finishing: true) }.map(\.description), [])
  }

  func testSleepingTask_isReported_andCancelledInTheTest_isNot() throws {
    var task: Task<Void, Never>?
    // Until it sleeps, the task is queued work the executor holds, not one left waiting (a loaded
    // machine may not have run it within the grace period).
    let reported = findings {
      let started = startSleepingTask()
      task = started
      eventually { hasSuspended(started) }
    }
    task?.cancel()
    XCTAssertEqual(reported.count, 1, "\(reported.map(\.description))")
    let text = try XCTUnwrap(reported.first).description
    XCTAssertTrue(text.contains("It waits in closure #1 in startSleepingTask()"), text)
    XCTAssertEqual(findings { startSleepingTask().cancel() }.map(\.description), [])
  }

  func testTaskWaitingOnACheckedContinuation_namesTheCanaryThatCouldResumeIt_andResumedInTheTest_isNotReported() throws {
    var resume: (@Sendable () -> Void)?
    let reported = findings { resume = startTaskWaitingOnAContinuation() }
    resume?()
    XCTAssertEqual(reported.count, 1, "\(reported.map(\.description))")
    let text = try XCTUnwrap(reported.first).description
    XCTAssertTrue(text.contains("ParkedContinuation.continuation.canary → CheckedContinuationCanary.continuation → Task.closure → "), text)
    XCTAssertEqual(findings { startTaskWaitingOnAContinuation()() }.map(\.description), [])
  }

  func testAllowedTask_isNotReported() {
    var configuration = fastConfiguration
    configuration.allowedTasks = ["closure #1 in LeakTestSupport.startSleepingTask()"]
    var task: Task<Void, Never>?
    XCTAssertEqual(findings(configuration) { task = startSleepingTask() }.map(\.description), [])
    task?.cancel()
  }

  /// The finding of a test that starts `start` on a stream it finishes after the check.
  private func findingOfTaskWaiting(on start: (AsyncStream<Int>) -> Void) throws -> String {
    let (stream, continuation) = AsyncStream<Int>.makeStream()
    let findings = findings { start(stream) }
    continuation.finish()
    XCTAssertEqual(findings.count, 1, "the outer task alone: it holds the other \(findings.map(\.description))")
    return try XCTUnwrap(findings.first).description
  }

  func testTaskAwaitingAnotherTasksValue_isReportedOnce_whereItAwaits() throws {
    let text = try findingOfTaskWaiting(on: startTaskAwaitingAnother(on:))
    XCTAssertTrue(text.contains("It waits in closure #2 in startTaskAwaitingAnother(on:)"), text)
    XCTAssertTrue(text.contains("resumed through Task.waiting task"), text)
  }

  /// The clean twins: each task ends once the stream it (or its child) waits on finishes.
  func testTasksWaitingOnAFinishedStream_throughAValueAGroupOrAnAsyncLet_areNotReported() {
    for start in [startTaskAwaitingAnother(on:), startTaskGroupWaiting(on:), startAsyncLetWaiting(on:)] {
      let (stream, continuation) = AsyncStream<Int>.makeStream()
      continuation.finish()
      XCTAssertEqual(findings { start(stream) }.map(\.description), [])
    }
  }

  func testTaskWaitingOnAStoredUnsafeContinuation_namesItsHolder_andResumed_isNot() throws {
    let parked = ParkedUnsafeContinuation()
    let reported = findings { startTaskWaitingOnAnUnsafeContinuation(parkedIn: parked) }
    parked.resume()
    XCTAssertEqual(reported.count, 1, "\(reported.map(\.description))")
    let text = try XCTUnwrap(reported.first).description
    XCTAssertTrue(text.contains("ParkedUnsafeContinuation.continuation"), text)
    let resumed = ParkedUnsafeContinuation()
    XCTAssertEqual(
      findings {
        startTaskWaitingOnAnUnsafeContinuation(parkedIn: resumed)
        resumed.resume()
      }.map(\.description), [])
  }

  func testTaskGroupWithAChildThatWaits_isReportedOnce_waitingForItsChild() throws {
    let text = try findingOfTaskWaiting(on: startTaskGroupWaiting(on:))
    XCTAssertTrue(text.contains("It waits in closure #1 in startTaskGroupWaiting(on:)"), text)
    XCTAssertTrue(text.contains(", for its child tasks to end"), text)
  }

  func testAsyncLetChildThatWaits_isReportedOnce_waitingForItsChild() throws {
    let text = try findingOfTaskWaiting(on: startAsyncLetWaiting(on:))
    XCTAssertTrue(text.contains("It waits in closure #1 in startAsyncLetWaiting(on:)"), text)
    XCTAssertTrue(text.contains(", for its child tasks to end"), text)
  }

  func testTaskQueuedBehindABusyActor_namesTheActor_andTheRunningTaskIsReportedAsRunning() throws {
    let gate = Gate()
    let reported = findings { startTaskQueuedBehindABusyActor(gate) }
    gate.release()
    let texts = reported.map(\.description)
    XCTAssertEqual(texts.count, 2, "\(texts)")
    XCTAssertTrue(texts.contains { $0.contains(", queued on actor Gate behind its other work") }, "\(texts)")
    XCTAssertTrue(texts.contains { $0.contains("It is running now, on one of the program's threads.") }, "\(texts)")
  }

  func testTasksOnAnActorReleasedInTheTest_areNotReported() {
    var configuration = fastConfiguration
    configuration.gracePeriod = .milliseconds(500)
    let gate = Gate()
    XCTAssertEqual(
      findings(configuration) {
        startTaskQueuedBehindABusyActor(gate)
        gate.release()
      }.map(\.description), [])
  }

  func testTaskOnADroppedContinuation_isReportedAsLeaked_withWhereItWaitsAndWhatItKeepsAlive() throws {
    // Where no continuation is kept is told by libdispatch's pending blocks and timers too.
    try skipWhereThreadSanitizerWrapsDispatchBlocks()
    let starts: [(name: String, start: () -> Void, line: () -> Int)] = [
      ("Unsafe", startTaskDroppingItsUnsafeContinuation, { DroppedContinuationLines.unsafe }),
      ("Checked", startTaskDroppingItsCheckedContinuation, { DroppedContinuationLines.checked }),
    ]
    for (name, start, line) in starts {
      let reported = findings { start() }
      XCTAssertEqual(reported.count, 1, "the task alone: it holds its payload \(reported.map(\.description))")
      let finding = try XCTUnwrap(reported.first)
      let text = finding.description
      XCTAssertTrue(finding.isTask, text)
      XCTAssertTrue(text.hasPrefix("A task the test made (0x"), text)
      XCTAssertTrue(text.contains("It waits in closure #1 in startTaskDroppingIts\(name)Continuation()"), text)
      XCTAssertTrue(text.contains(",\n  and nothing holds what could resume it: the task is leaked, with what it keeps alive.\n"), text)
      XCTAssertTrue(
        text.contains("It keeps alive 1 × ContinuationPayload, 1 × closure #1 in startTaskDroppingIts\(name)Continuation().\n"), text)
      #if DEBUG
        XCTAssertTrue(
          text.contains("It was made at startTaskDroppingIts\(name)Continuation() (TaskSnippets.swift:\(line()))"), text)
        XCTAssertTrue(text.contains(" at TaskSnippets.swift:\(line() + 1),"), text)
      #endif
      XCTAssertTrue(
        text.hasSuffix(
          "Resume the continuation it waits on, on every path (one dropped without being resumed leaves its task waiting for ever, never freed); or allow it (LeakCheckConfiguration.allowedTasks) if that is by design."
        ), text)
    }
  }
}
