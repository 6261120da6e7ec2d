import Foundation
import LeakDetectorTesting
import LeakTestSupport
import Synchronization
import Testing

@Suite(.serialized) struct LeakCheckSwiftTestingTests {
  @Test(.detectsLeaks(fastConfiguration)) func weakCaptureRelease_passesTheTrait() {
    let viewModel = trackForLeaks(LeakyViewModel())
    viewModel.bindWeakly()
  }

  @Test(.detectsLeaks(fastConfiguration)) func transientCycleBrokenAtTheEnd_passesTheTrait() {
    let viewModel = trackForLeaks(LeakyViewModel())
    viewModel.bindStrongly()
    viewModel.onUpdate = nil
  }

  @Test func leakingObject_isRecordedAsAnIssueWithItsCycle() async {
    await withKnownIssue {
      await withLeakChecking(fastConfiguration) {
        let viewModel = trackForLeaks(LeakyViewModel())
        viewModel.bindStrongly()
      }
    } matching: { issue in
      let text = issue.comments.map(\.rawValue).joined()
      return text.contains("Leak detected: LeakDetectorTestingTests.LeakyViewModel") && text.contains("It is held by a retain cycle")
    }
  }

  @Test func trackedLeak_isReportedAtTheTrackedLine() async throws {
    let collector = FindingCollector()
    var line = 0
    await withLeakReporter(collector.reporter) {
      await withLeakChecking(fastConfiguration) {
        let viewModel = LeakyViewModel()
        line = #line + 1
        trackForLeaks(viewModel)
        viewModel.bindStrongly()
      }
    }
    let tracked = try #require(collector.findings.first { $0.finding.trackedAt != nil })
    #expect(tracked.line == line)
    #expect(tracked.file.hasSuffix("LeakCheckSwiftTestingTests.swift"))
    #expect(tracked.finding.cycles.count == 1, "\(tracked.finding.description)")
  }

  @Test func untrackedLeak_inGenerationMode_reportsTheTopObjectOnly() async {
    let collector = FindingCollector()
    await withLeakReporter(collector.reporter) {
      await withLeakChecking(fastConfiguration) {
        let viewModel = LeakyViewModel()
        viewModel.child = ChildModel()
        viewModel.bindStrongly()
      }
    }
    #expect(collector.findings.map(\.finding.typeName) == ["LeakDetectorTestingTests.LeakyViewModel"])
  }

  @Test func taskLeftWaiting_isRecordedAsAnIssue_withWhereItWaits() async {
    var task: Task<Void, Never>?
    await withKnownIssue {
      await withLeakChecking(fastConfiguration) { task = await startSleepingTaskAndLetItSleep() }
    } matching: { issue in
      let text = issue.comments.map(\.rawValue).joined()
      return text.contains("Leak detected: A task the test made (0x") && text.contains("It waits in closure #1 in startSleepingTask()")
    }
    task?.cancel()
    // Ended and forgotten: the next test's task may take this one's address, and a word of this
    // frame left in the runner's task memory must not look like something holding it.
    await task?.value
    task = nil
  }

  @Test(.detectsLeaks(fastConfiguration)) func taskCancelledBeforeTheEnd_passesTheTrait() async {
    let task = startSleepingTask()
    task.cancel()
    await task.value
  }

  // Where no continuation is kept is told by libdispatch's pending blocks and timers too, which
  // ThreadSanitizer wraps.
  @Test(.disabled(if: threadSanitizerWrapsDispatchBlocks))
  func taskOnADroppedContinuation_isRecordedAsALeak_withWhatItKeepsAlive() async {
    // A task is a possible resumer of the continuation it waits on (an unsafe continuation is
    // the task's address), so a stale word equal to that address in the test runner's own task
    // memory, left by an earlier test's task at the same address, reads as something that could
    // resume it: the check then says the task has not completed (or, for the payload, that
    // something else holds it). That task never ends, so a second attempt's task lies elsewhere.
    let verdicts = Mutex<[String]>([])
    func isLeakedWithPayload(_ text: String) -> Bool {
      text.contains("nothing holds what could resume it: the task is leaked") && text.contains("It keeps alive 1 × ContinuationPayload")
    }
    for _ in 0..<2 where !verdicts.withLock({ $0.contains(where: isLeakedWithPayload) }) {
      await withKnownIssue {
        await withLeakChecking(fastConfiguration) { startTaskDroppingItsUnsafeContinuation() }
      } matching: { issue in
        let text = issue.comments.map(\.rawValue).joined()
        verdicts.withLock { $0.append(text) }
        return text.contains("Leak detected: A task the test made (0x")
          && text.contains("It waits in closure #1 in startTaskDroppingItsUnsafeContinuation()")
      }
    }
    #expect(verdicts.withLock { $0.contains(where: isLeakedWithPayload) }, "\(verdicts.withLock { $0 })")
  }
}
