import Foundation
import HeapGraph
import LeakDetectorTesting
import Testing

@Suite(.serialized) struct HeapGrowthCheckSwiftTestingTests {
  @Test func appendingToAGlobal_isRecordedAsAnIssueAtTheCallersLine() async {
    defer { growingItems.removeAll() }
    let line = #line + 2
    await withKnownIssue {
      await expectNoHeapGrowth(iterations: 3) { appendGrowthItem() }
    } matching: { issue in
      let text = issue.comments.map(\.rawValue).joined()
      return text.hasPrefix("Heap growth: LeakDetectorTestingTests.GrowthItem grew in every iteration: 2 -> 3 -> 4 -> 5 objects")
        && text.contains("global LeakDetectorTestingTests.growingItems[*]: GrowthItem")
        && text.contains("appendGrowthItem() (HeapGrowthFixtures.swift:\(appendGrowthItemLine)): 3 objects")
        && issue.sourceLocation?.line == line && issue.sourceLocation?.fileName == "HeapGrowthCheckSwiftTestingTests.swift"
    }
  }

  @Test func boundedCacheLazySingletonAndTransientWork_pass() async {
    defer {
      boundedCache = nil
      LazySingleton.shared = nil
    }
    let collector = FindingCollector()
    await withLeakReporter(collector.reporter) {
      await expectNoHeapGrowth { insertIntoBoundedCache() }
      await expectNoHeapGrowth(warmUp: 0) { _ = LazySingleton.use() }
      await expectNoHeapGrowth(warmUp: 0) { doTransientWork() }
    }
    #expect(collector.findings.isEmpty, "\(collector.findings.map(\.finding.description))")
  }

  @Test func aTaskPerIterationThatNeverEnds_isNamed() async throws {
    defer { parkedTasks.resumeAll() }
    let collector = FindingCollector()
    await withLeakReporter(collector.reporter) {
      await expectNoHeapGrowth(iterations: 3) { await startNeverEndingTask() }
    }
    let finding = try #require(collector.findings.first?.finding)
    #expect(collector.findings.count == 1)
    #expect(finding.growth?.counts == [8, 12, 16, 20], "each canary with its task, the task's closure and its worker")
    #expect(finding.growth?.holds.contains { $0.typeName == "LeakDetectorTestingTests.GrowthWorker" } == true, "\(finding.description)")
    #expect(
      finding.description.contains(
        "global LeakDetectorTestingTests.parkedTasks: ParkedTasks.continuations[*].canary → CheckedContinuationCanary"),
      "\(finding.description)")
    #expect(finding.allocationSite?.symbol?.contains("LeakDetectorTestingTests.startNeverEndingTask()") == true, "\(finding.description)")
  }
}

/// A server that caches every response, appends a handler per request and starts a task per
/// request that never ends has three growing paths, each named with the line that added it; its
/// twin that keeps nothing per request has none.
@Suite(.serialized) struct GrowingServerTests {
  @Test func growingServer_namesItsThreeGrowingPaths() async throws {
    defer { GrowingServer.shared.parked.resumeAll() }
    let collector = FindingCollector()
    await withLeakReporter(collector.reporter) {
      await expectNoHeapGrowth { await GrowingServer.shared.handle() }
    }
    let descriptions = collector.findings.map(\.finding.description)
    #expect(collector.findings.count == 3, "\(descriptions)")
    let paths = collector.findings.compactMap { $0.finding.growth.map { "\($0.origin ?? ""): \(NameStyle.full.chain($0.links))" } }.sorted()
    #expect(
      paths == [
        "global LeakDetectorTestingTests.GrowingServer.shared: LeakDetectorTestingTests.GrowingServer.cache[*] -> LeakDetectorTestingTests.FeedResponse",
        "global LeakDetectorTestingTests.GrowingServer.shared: LeakDetectorTestingTests.GrowingServer.handlers[*] -> closure #1 in LeakDetectorTestingTests.GrowingServer.handle()",
        "global LeakDetectorTestingTests.GrowingServer.shared: LeakDetectorTestingTests.GrowingServer.parked -> LeakDetectorTestingTests.ParkedTasks.continuations[*].canary -> Swift.CheckedContinuationCanary",
      ], "\(descriptions)")
    for finding in collector.findings {
      // The task's continuation is allocated in its closure; the handler is the closure itself,
      // whose code may have no line in a release build.
      #expect(finding.finding.allocationSite?.symbol?.contains("GrowingServer.handle()") == true, "\(finding.finding.description)")
      // A task per request is counted with what its continuation's canary resumes: the task and its closure.
      let perRequest = finding.finding.growth?.links.last?.typeName == "Swift.CheckedContinuationCanary" ? 3 : 1
      #expect(finding.finding.growth?.counts == [2, 3, 4, 5, 6, 7].map { $0 * perRequest }, "\(finding.finding.description)")
    }
  }

  @Test func steadyServer_passes() async {
    let collector = FindingCollector()
    await withLeakReporter(collector.reporter) {
      await expectNoHeapGrowth { await SteadyServer.shared.handle() }
    }
    #expect(collector.findings.isEmpty, "\(collector.findings.map(\.finding.description))")
  }
}
