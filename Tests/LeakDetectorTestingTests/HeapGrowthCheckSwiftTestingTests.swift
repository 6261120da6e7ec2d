import Foundation
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
    #expect(finding.growth?.counts == [2, 3, 4, 5])
    #expect(finding.description.contains("global LeakDetectorTestingTests.parkedTasks: ParkedTasks.continuations[*].canary → CheckedContinuationCanary"), "\(finding.description)")
  }
}
