import Foundation
import LeakDetectorTesting
import LeakTestSupport
import XCTest

/// Test cases run programmatically by the tests below: their leak checks report to a collector.
final class FixtureCases: XCTestCase {
  nonisolated(unsafe) static var trackedLine = 0

  override func perform(_ run: XCTestRun) { performNested(run) }

  func leaksThroughAClosure() {
    let viewModel = LeakyViewModel()
    FixtureCases.trackedLine = #line + 1
    trackForLeaks(viewModel, configuration: fastConfiguration)
    viewModel.bindStrongly()
  }

  func releasesWithAWeakCapture() {
    let viewModel = trackForLeaks(LeakyViewModel(), configuration: fastConfiguration)
    viewModel.bindWeakly()
  }

  func breaksItsCycleAtTheEnd() {
    let viewModel = trackForLeaks(LeakyViewModel(), configuration: fastConfiguration)
    viewModel.bindStrongly()
    viewModel.onUpdate = nil  // the transient cycle is broken before the test ends
  }

  func keepsAnObjectBehindACoordinator() {
    let coordinator = Coordinator()
    coordinator.current = trackForLeaks(LeakyViewModel(), configuration: fastConfiguration)
    globalCache.append(coordinator)
  }

  func keepsAnObjectInAGlobal() {
    let viewModel = trackForLeaks(LeakyViewModel(), configuration: fastConfiguration)
    globalCache.append(viewModel)
  }
}

extension XCTestCase {
  /// Runs this test case inside the one that is running. XCTest's own `perform` makes the
  /// nested case the current one and then none, which silently drops every assertion the outer
  /// test makes after it; this runs the same sequence (setUp, the test, tearDown and teardown
  /// blocks) and leaves the outer test current.
  func performNested(_ run: XCTestRun) {
    run.start()
    invokeTest()
    run.stop()
  }
}

final class LeakCheckXCTests: XCTestCase {
  private func run(_ name: String, _ body: @escaping (FixtureCases) -> Void) -> [(finding: LeakFinding, file: String, line: Int)] {
    let collector = FindingCollector()
    withLeakReporter(collector.reporter) {
      let testCase = FixtureCases(name: name) { body($0 as! FixtureCases) }
      testCase.run()
    }
    return collector.findings
  }

  func testTrackForLeaks_leakingObject_failsAtTheTrackedLineWithItsCycle() throws {
    let findings = run("leaksThroughAClosure") { $0.leaksThroughAClosure() }
    XCTAssertEqual(findings.count, 1)
    let report = try XCTUnwrap(findings.first)
    XCTAssertEqual(report.finding.kind, .leaked)
    XCTAssertEqual(report.line, FixtureCases.trackedLine)
    XCTAssertTrue(report.file.hasSuffix("LeakCheckXCTests.swift"), report.file)
    XCTAssertEqual(report.finding.typeName, "LeakDetectorTestingTests.LeakyViewModel")
    XCTAssertEqual(report.finding.cycles.count, 1)
    let text = report.finding.description
    XCTAssertTrue(text.contains("is still alive 0.02 s after the test"), text)
    XCTAssertTrue(text.contains("It is held by a retain cycle"), text)
    XCTAssertTrue(text.hasPrefix("LeakDetectorTestingTests.LeakyViewModel (0x"), text)
    XCTAssertTrue(
      text.contains(
        "  LeakyViewModel.onUpdate → closure #1 in LeakyViewModel.bindStrongly().capture #0: LeakyViewModel → LeakyViewModel\n"), text)
  }

  func testTrackForLeaks_weakCaptureAndBrokenCycle_pass() {
    XCTAssertTrue(run("releasesWithAWeakCapture") { $0.releasesWithAWeakCapture() }.isEmpty)
    XCTAssertTrue(run("breaksItsCycleAtTheEnd") { $0.breaksItsCycleAtTheEnd() }.isEmpty)
  }

  func testTrackForLeaks_objectHeldWithoutACycle_saysSo() throws {
    AllocationTracker.start()
    defer {
      AllocationTracker.stop()
      globalCache.removeAll()
    }
    let findings = run("keepsAnObjectInAGlobal") { $0.keepsAnObjectInAGlobal() }
    let finding = try XCTUnwrap(findings.first?.finding)
    XCTAssertTrue(finding.cycles.isEmpty)
    XCTAssertTrue(finding.description.contains("No retain cycle holds it"), finding.description)
    XCTAssertTrue(finding.description.contains("held by global LeakDetectorTestingTests.globalCache[0]"), finding.description)
  }

  func testTrackForLeaks_captureFailsEveryTime_stillFailsAndSaysWhy() throws {
    CaptureFault.staged.withLock { $0 = [.crash, .crash, .crash] }
    defer { CaptureFault.staged.withLock { $0.removeAll() } }
    let findings = run("leaksThroughAClosure") { $0.leaksThroughAClosure() }
    let report = try XCTUnwrap(findings.first)
    XCTAssertEqual(findings.count, 1)
    XCTAssertEqual(report.finding.kind, .leaked)
    XCTAssertEqual(report.line, FixtureCases.trackedLine)
    XCTAssertTrue(report.finding.cycles.isEmpty)
    XCTAssertTrue(
      report.finding.description.contains(
        "The heap could not be captured to explain what holds it: the capture process was killed by signal 11"),
      report.finding.description)
    let failure = try XCTUnwrap(report.finding.captureFailure)
    XCTAssertEqual(failure.attempts, 3)
    XCTAssertTrue(failure.description.hasSuffix("; the capture was given up after 3 attempts"), failure.description)
    XCTAssertTrue(
      report.finding.description.contains("The heap could not be captured to explain what holds it: \(failure)."),
      report.finding.description)
  }

  /// The failure text people read, for a cycle and for a chain of references from a global
  /// (addresses and line numbers masked: they differ between runs and between debug and release).
  func testFailureText_cycleAndRetainingPath_matchGoldenFile() throws {
    AllocationTracker.start()
    defer {
      AllocationTracker.stop()
      globalCache.removeAll()
    }
    let cycle = try XCTUnwrap(run("leaksThroughAClosure") { $0.leaksThroughAClosure() }.first?.finding)
    let path = try XCTUnwrap(run("keepsAnObjectBehindACoordinator") { $0.keepsAnObjectBehindACoordinator() }.first?.finding)
    let text = [cycle, path].map { "Leak detected: \($0.description)\n" }.joined(separator: "\n")
    let masked = text.replacing(/0x[0-9a-f]+/, with: "0x…").replacing(/\.swift:\d+/, with: ".swift:N")
    assertMatchesGolden(masked, named: "failure-text.txt")
  }

  func testGenerationMode_untrackedLeak_reportsOnlyTheTopOfTheLeakedTree() throws {
    let collector = FindingCollector()
    withLeakReporter(collector.reporter) {
      withLeakChecking(fastConfiguration) {
        let viewModel = LeakyViewModel()
        viewModel.child = ChildModel()
        viewModel.bindStrongly()  // the view model leaks, and with it its child and grandchild
        let fine = LeakyViewModel()
        fine.bindWeakly()
      }
    }
    let findings = collector.findings
    XCTAssertEqual(findings.map(\.finding.typeName), ["LeakDetectorTestingTests.LeakyViewModel"])
    let site = try XCTUnwrap(findings.first)
    #if DEBUG
      XCTAssertTrue(site.file.hasSuffix("LeakCheckXCTests.swift"), "reported at the allocation site: \(site.file)")
    #else
      // Optimized code inlines the initializer: the nearest real line-table row may be the
      // inlined initializer's own (its property initializers).
      XCTAssertTrue(site.file.hasSuffix(".swift"), "reported at the allocation site: \(site.file)")
    #endif
    XCTAssertGreaterThan(site.line, 0)
  }

  func testGenerationMode_allowListsAndKnownLeaks() {
    var allowing = fastConfiguration
    allowing.allowedTypes.append("LeakDetectorTestingTests.LeakyViewModel")
    let allowed = FindingCollector()
    withLeakReporter(allowed.reporter) {
      withLeakChecking(allowing) { LeakyViewModel().bindStrongly() }
    }
    XCTAssertTrue(allowed.findings.isEmpty)

    var byReference = fastConfiguration
    byReference.allowedReferences = ["LeakDetectorTestingTests.LeakyViewModel.onUpdate"]
    let referenceAllowed = FindingCollector()
    withLeakReporter(referenceAllowed.reporter) {
      withLeakChecking(byReference) { LeakyViewModel().bindStrongly() }
    }
    XCTAssertTrue(referenceAllowed.findings.isEmpty)

    var known = fastConfiguration
    known.knownLeaks = ["LeakDetectorTestingTests.LeakyViewModel"]
    let knownCollector = FindingCollector()
    withLeakReporter(knownCollector.reporter) {
      withLeakChecking(known) { LeakyViewModel().bindStrongly() }
    }
    XCTAssertEqual(knownCollector.findings.map(\.finding.kind), [.knownLeak])

    // The same known leak in the suppression format of `leak-detector run --suppressions`.
    var fromFile = fastConfiguration
    fromFile.knownLeakRules = try! Suppressions(parsing: "type LeakDetectorTestingTests.Leaky*  # known\n", name: "leaks.suppressions")
    let fileCollector = FindingCollector()
    withLeakReporter(fileCollector.reporter) {
      withLeakChecking(fromFile) { LeakyViewModel().bindStrongly() }
    }
    XCTAssertEqual(fileCollector.findings.map(\.finding.kind), [.knownLeak])
  }

  func testEnvironmentVariable_disablesChecks() {
    setenv(LeakCheckConfiguration.disablingEnvironmentVariable, "1", 1)
    defer { unsetenv(LeakCheckConfiguration.disablingEnvironmentVariable) }
    let collector = FindingCollector()
    withLeakReporter(collector.reporter) {
      withLeakChecking(fastConfiguration) { LeakyViewModel().bindStrongly() }
    }
    XCTAssertTrue(collector.findings.isEmpty)
  }

  func testTheCheckerItself_leaksNothing() {
    // Warm up the process-wide singletons (reflection context, symbolicator) first.
    _ = RetainCycleDetector.cycles(from: LeakyViewModel())
    var strict = fastConfiguration
    strict.allowedTypes = LeakCheckConfiguration.standardAllowedTypes.filter { !$0.hasPrefix("LeakDetector") }
    let collector = FindingCollector()
    withLeakReporter(collector.reporter) {
      withLeakChecking(strict) {
        let viewModel = LeakyViewModel()
        viewModel.bindWeakly()
        _ = RetainCycleDetector.cycles(from: viewModel)
        _ = AllocationTracker.snapshot()
        _ = references(of: viewModel)
      }
    }
    XCTAssertEqual(collector.findings.map(\.finding.description), [])
  }
}

/// A whole class in generation mode.
final class GenerationFixtureCases: LeakTestCase {
  override var leakCheckConfiguration: LeakCheckConfiguration { fastConfiguration }

  override func perform(_ run: XCTestRun) { performNested(run) }

  func leaksWithoutTracking() {
    let viewModel = LeakyViewModel()
    viewModel.bindStrongly()
  }

  func releasesEverything() {
    let viewModel = LeakyViewModel()
    viewModel.bindWeakly()
  }
}

final class LeakTestCaseTests: XCTestCase {
  private func run(_ name: String, _ body: @escaping (GenerationFixtureCases) -> Void) -> [LeakFinding] {
    let collector = FindingCollector()
    withLeakReporter(collector.reporter) {
      GenerationFixtureCases(name: name) { body($0 as! GenerationFixtureCases) }.run()
    }
    return collector.findings.map(\.finding)
  }

  func testLeakTestCase_checksEveryTestWithoutTracking() {
    XCTAssertEqual(run("leaksWithoutTracking") { $0.leaksWithoutTracking() }.map(\.typeName), ["LeakDetectorTestingTests.LeakyViewModel"])
    XCTAssertEqual(run("releasesEverything") { $0.releasesEverything() }.map(\.typeName), [])
  }

  func testLateDeallocation_isReportedAsSuchNotAsALeak() {
    let collector = FindingCollector()
    withLeakReporter(collector.reporter) {
      let testCase = FixtureCases(name: "late") { testCase in
        let object = SlowToDie()
        SlowToDie.holdUntilCaptured(object)
        testCase.trackForLeaks(object, configuration: fastConfiguration)
      }
      testCase.run()
    }
    XCTAssertEqual(collector.findings.map(\.finding.kind), [.deallocatedLate])
    XCTAssertTrue(collector.findings.first?.finding.description.contains("was deallocated late") ?? false)
  }

  /// Run with LEAK_DETECTOR_SHOW_FAILURE=1 to see a real failure (it is the README's example).
  func testShowTheFailureText() throws {
    try XCTSkipUnless(ProcessInfo.processInfo.environment["LEAK_DETECTOR_SHOW_FAILURE"] == "1", "shows a real failure on demand")
    let viewModel = trackForLeaks(ProfileViewModel())
    viewModel.bind(to: ProfileView())
  }
}
