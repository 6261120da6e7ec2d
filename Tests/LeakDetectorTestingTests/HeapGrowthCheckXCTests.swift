import Foundation
import HeapGraph
import LeakDetectorTesting
import XCTest

final class HeapGrowthCheckXCTests: XCTestCase {
  private func findings(_ body: () -> Void) -> [(finding: LeakFinding, file: String, line: Int)] {
    let collector = FindingCollector()
    withLeakReporter(collector.reporter, body)
    return collector.findings
  }

  func testExpectNoHeapGrowth_appendingToAGlobal_failsNamingThePathCountsAndLine() throws {
    defer { growingItems.removeAll() }
    var line = 0
    let reports = findings {
      line = #line + 1
      expectNoHeapGrowth(iterations: 5) { appendGrowthItem() }
    }
    let report = try XCTUnwrap(reports.first)
    XCTAssertEqual(reports.count, 1)
    XCTAssertEqual(report.line, line)
    XCTAssertTrue(report.file.hasSuffix("HeapGrowthCheckXCTests.swift"), report.file)
    XCTAssertEqual(report.finding.kind, .grew)
    let growth = try XCTUnwrap(report.finding.growth)
    XCTAssertEqual(growth.counts, [2, 3, 4, 5, 6, 7])
    XCTAssertEqual(growth.origin, "global LeakDetectorTestingTests.growingItems[*]")
    XCTAssertEqual(growth.addedAt.first?.site.line, appendGrowthItemLine)
    XCTAssertEqual(growth.addedAt.first?.count, 5)
    let text = report.finding.description
    XCTAssertTrue(
      text.hasPrefix("LeakDetectorTestingTests.GrowthItem grew in every iteration: 2 -> 3 -> 4 -> 5 -> 6 -> 7 objects (+1 per iteration"),
      text)
    XCTAssertTrue(text.contains("\n  global LeakDetectorTestingTests.growingItems[*]: GrowthItem\n"), text)
    XCTAssertTrue(
      text.contains("They were allocated at appendGrowthItem() (HeapGrowthFixtures.swift:\(appendGrowthItemLine)): 5 objects."), text)
  }

  func testExpectNoHeapGrowth_boundedCacheAfterWarmUp_passes() {
    defer { boundedCache = nil }
    XCTAssertTrue(findings { expectNoHeapGrowth(iterations: 5, warmUp: 2) { insertIntoBoundedCache() } }.isEmpty)
  }

  /// Filling in the first iterations, full in the later ones: not growth in every iteration.
  func testExpectNoHeapGrowth_boundedCacheFillingDuringTheIterations_passesWhenItIsFullBeforeTheEnd() {
    defer { boundedCache = nil }
    XCTAssertTrue(findings { expectNoHeapGrowth(iterations: 5, warmUp: 0) { insertIntoBoundedCache() } }.isEmpty)
  }

  /// With no more iterations than it holds, a cache that fills up grows in each: warm up first.
  func testExpectNoHeapGrowth_boundedCacheFillingInEveryIteration_isReported() throws {
    defer { boundedCache = nil }
    let reports = findings { expectNoHeapGrowth(iterations: 3, warmUp: 0) { insertIntoBoundedCache() } }
    let growth = try XCTUnwrap(reports.first?.finding.growth)
    XCTAssertEqual(reports.count, 1)
    XCTAssertEqual(growth.counts, [0, 1, 2, 3])
    XCTAssertEqual(
      growth.summary,
      "global LeakDetectorTestingTests.boundedCache: LeakDetectorTestingTests.BoundedCache.entries[*] -> LeakDetectorTestingTests.GrowthItem"
    )
  }

  func testExpectNoHeapGrowth_lazySingletonAndTransientWork_pass() {
    defer { LazySingleton.shared = nil }
    XCTAssertTrue(findings { expectNoHeapGrowth { _ = LazySingleton.use() } }.isEmpty)
    LazySingleton.shared = nil
    XCTAssertTrue(findings { expectNoHeapGrowth(warmUp: 0) { _ = LazySingleton.use() } }.isEmpty)
    XCTAssertTrue(findings { expectNoHeapGrowth(warmUp: 0) { doTransientWork() } }.isEmpty)
  }

  /// Inside a leak check, the check leaves the generation alone: the enclosing check still
  /// reports what the scenario kept, each at its allocation site.
  func testExpectNoHeapGrowth_insideWithLeakChecking_leavesTheEnclosingCheckItsGeneration() {
    defer { growingItems.removeAll() }
    let reports = findings {
      withLeakChecking(fastConfiguration) {
        expectNoHeapGrowth(iterations: 3, warmUp: 0) { appendGrowthItem() }
      }
    }
    XCTAssertEqual(reports.map(\.finding.kind), [.grew, .leaked, .leaked, .leaked], "\(reports.map(\.finding.description))")
    XCTAssertEqual(reports.dropFirst().map(\.line), Array(repeating: appendGrowthItemLine, count: 3))
  }

  func testExpectNoHeapGrowth_aTaskPerIterationThatNeverEnds_isNamed() async throws {
    defer { parkedTasks.resumeAll() }
    let collector = FindingCollector()
    var line = 0
    await withLeakReporter(collector.reporter) {
      line = #line + 1
      await expectNoHeapGrowth(iterations: 3) { await startNeverEndingTask() }
    }
    let report = try XCTUnwrap(collector.findings.first)
    XCTAssertEqual(collector.findings.count, 1, "\(collector.findings.map(\.finding.description))")
    XCTAssertEqual(report.line, line)
    XCTAssertEqual(report.finding.kind, .grew)
    // Each iteration's canary, with the task it resumes, the task's closure and the worker it keeps.
    XCTAssertEqual(report.finding.growth?.counts, [8, 12, 16, 20])
    XCTAssertEqual(report.finding.growth?.origin, "global LeakDetectorTestingTests.parkedTasks")
    let text = report.finding.description
    XCTAssertTrue(text.contains("ParkedTasks.continuations[*].canary → CheckedContinuationCanary"), text)
    XCTAssertEqual(
      Set(report.finding.growth?.holds.map(\.typeName) ?? []),
      ["Task", "LeakDetectorTestingTests.GrowthWorker", "closure #1 in LeakDetectorTestingTests.startNeverEndingTask()"], text)
    XCTAssertTrue(report.finding.growth?.holds.allSatisfy { $0.counts == [2, 3, 4, 5] } ?? false, text)
    XCTAssertTrue(text.contains("Each holds what grew with it: "), text)
    XCTAssertTrue(text.contains("GrowthWorker 2 -> 3 -> 4 -> 5"), text)
    XCTAssertEqual(report.finding.allocationSite?.file?.hasSuffix("HeapGrowthFixtures.swift"), true, text)
    #if DEBUG  // optimized, the initializers are inlined: the lines are their declarations'
      for (made, line) in [("worker", neverEndingTaskLines.worker), ("task", neverEndingTaskLines.task)] {
        XCTAssertTrue(
          text.contains("They were allocated at startNeverEndingTask() (async) (HeapGrowthFixtures.swift:\(line)): 3 objects."),
          "the line that made the \(made):\n\(text)")
      }
    #endif
  }

  func testExpectNoHeapGrowth_aClosurePerIterationCapturingAListener_namesTheListenerWithItsLine() throws {
    defer { listenerRegistry.handlers.removeAll() }
    let reports = findings { expectNoHeapGrowth(iterations: 3) { registerListener() } }
    XCTAssertEqual(reports.count, 1, "\(reports.map(\.finding.description))")
    let report = try XCTUnwrap(reports.first)
    let growth = try XCTUnwrap(report.finding.growth)
    let text = report.finding.description
    XCTAssertEqual(growth.origin, "global LeakDetectorTestingTests.listenerRegistry", text)
    XCTAssertEqual(growth.links.last?.typeName, "closure #1 in LeakDetectorTestingTests.registerListener()", text)
    XCTAssertEqual(growth.holds, [HeapGrowth.Finding.Held(typeName: "LeakDetectorTestingTests.GrowthListener", counts: [2, 3, 4, 5])])
    XCTAssertEqual(growth.counts, [4, 6, 8, 10], "each closure with the listener it captures")
    XCTAssertTrue(text.contains("Each holds what grew with it: GrowthListener 2 -> 3 -> 4 -> 5.\n"), text)
    #if DEBUG
      XCTAssertTrue(
        text.contains("They were allocated at registerListener() (HeapGrowthFixtures.swift:\(registerListenerLines.listener)): 3 objects."),
        "the listener's line:\n\(text)")
      XCTAssertTrue(
        text.contains("(HeapGrowthFixtures.swift:\(registerListenerLines.closure)): 3 objects."), "the closure's line:\n\(text)")
    #endif
  }
}

/// The article's failure is the check's real output, in a debug build (in release builds the
/// allocating line is the inlined initializer's, so the suite exists in debug builds only).
#if DEBUG
  final class HeapGrowthArticleTests: XCTestCase {
    func testExpectNoHeapGrowth_untrimmedLog_failsAsTheArticleShows() throws {
      let collector = FindingCollector()
      withLeakReporter(collector.reporter) {
        expectNoHeapGrowth(iterations: 5) { UntrimmedFeedServer.shared.handle(path: "/feed") }
      }
      let finding = try XCTUnwrap(collector.findings.first?.finding)
      let article = try String(
        contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
          .appendingPathComponent("Sources/LeakDetectorTesting/LeakDetectorTesting.docc/CheckingForLeaksInTests.md"),
        encoding: .utf8)
      XCTAssertTrue(
        article.contains("```text\nHeap growth: \(finding.description)\n```"),
        "The article's heap growth example differs from the output; update it to:\nHeap growth: \(finding.description)")
    }
  }
#endif
