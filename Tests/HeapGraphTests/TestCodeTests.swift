import HeapGraph
import LeakTestSupport
import XCTest

/// Which types are a test target's (``TestCode``), and how a run report orders and folds the
/// leaks that go through them.
final class TestCodeTests: XCTestCase {
  func testTestCode_typesAndClosuresOfTestModules_butNotLibraryTypesInstantiatedWithThem() {
    let testCode = TestCode()
    XCTAssertTrue(testCode.contains(typeName: "OpenCombineTests.TrackingSubscriberBase<Swift.Int, OpenCombineTests.TestingError>"))
    XCTAssertTrue(testCode.contains(typeName: "closure #2 in OpenCombineTests.BufferTests.testRecursion(prefetch:whenFull:)"))
    XCTAssertTrue(testCode.contains(typeName: "closure #1 in (extension in AppTests):XCTest.XCTestCase.waitForFeed()"))
    XCTAssertFalse(
      testCode.contains(
        typeName:
          "OpenCombine.Publishers.Map<OpenCombineTests.CustomPublisherBase<Swift.Int, Swift.Never>, Swift.Int>.Inner<OpenCombineTests.TrackingSubscriberBase<Swift.Int, Swift.Never>>"
      ))
    XCTAssertFalse(testCode.contains(typeName: "closure #1 in App.Feed.load()"))
    XCTAssertFalse(testCode.contains(typeName: "Swift._ContiguousArrayStorage<AppTests.Mock>"))
  }

  func testTestCode_aModuleWhoseSourcesLieInATestsDirectory_isATestModule() {
    let stacks = [
      [
        StackFrame(symbol: "App.Feed.__allocating_init() -> App.Feed", file: "/p/Sources/App/Feed.swift", line: 3),
        StackFrame(symbol: "Integration.ServerSuite.testStart() -> ()", file: "/p/Tests/Integration/ServerSuite.swift", line: 9),
      ]
    ]
    let testCode = TestCode(stacks: stacks, packageDirectory: "/p")
    XCTAssertEqual(testCode.modules, ["Integration"])
    XCTAssertTrue(testCode.contains(typeName: "Integration.MockClient"))
    XCTAssertFalse(testCode.contains(typeName: "App.Feed"))
    // A package checked out under a directory named Tests is not all test code.
    XCTAssertEqual(
      TestCode(
        stacks: stacks.map {
          $0.map { frame in
            var moved = frame
            moved.file = frame.file.map { "/home/Tests" + $0 }
            return moved
          }
        }, packageDirectory: "/home/Tests/p"
      ).modules, ["Integration"])
    XCTAssertEqual(TestCode(stacks: stacks, packageDirectory: nil).modules, ["Integration"])
  }

  /// An inlined library function whose instructions the line table gives a test's line is not
  /// a test's function.
  func testTestCode_inlinedFramesInTestFiles_doNotMakeTheirModuleATestModule() {
    var inlined = StackFrame(symbol: "OpenCombine.Publishers.Map.init() -> ()", file: "/p/Tests/AppTests/MapTests.swift", line: 9)
    inlined.inlined = true
    let holder = StackFrame(symbol: "AppTests.MapTests.testMap() -> ()", file: "/p/Tests/AppTests/MapTests.swift", line: 9)
    XCTAssertEqual(TestCode(stacks: [[inlined, holder]], packageDirectory: "/p").modules, ["AppTests"])
  }

  /// A program that runs no tests has no test code, whatever its modules' names.
  func testTestCode_none_containsNothing() {
    XCTAssertFalse(TestCode.none.contains(typeName: "AppTests.TrackingSubscriber"))
    XCTAssertFalse(TestCode.none.contains(typeName: "closure #1 in AppTests.FeedTests.testLoad()"))
  }

  /// A library's cycle comes first even when a test-only cycle retains more; with a library
  /// leak, the test-only ones are counted, and listed when asked for.
  func testRunReport_leaksThroughTestCode_comeAfterTheLibrarysAndAreFolded_golden() {
    var builder = HeapSnapshot.Builder(metadata: HeapSnapshot.Metadata(tool: "test", process: "AppPackageTests.xctest (pid 10)"))
    builder.addStack(
      id: 1, frames: [StackFrame(symbol: "AppTests.FeedTests.testLoad() -> ()", file: "/p/Tests/AppTests/FeedTests.swift", line: 7)])
    builder.addObject(id: 1, type: "App.Subject", address: 0x1000, size: 48, stack: 1)
    builder.addObject(id: 2, type: "App.Conduit", address: 0x2000, size: 32, stack: 1)
    builder.addReference(from: 1, to: 2, label: "downstream", ownership: .strong)
    builder.addReference(from: 2, to: 1, label: "parent", ownership: .strong)
    builder.addObject(id: 3, type: "AppTests.TrackingSubscriber", address: 0x3000, size: 400, stack: 1)
    builder.addObject(id: 4, type: "App.Map.Inner", address: 0x4000, size: 400, stack: 1)
    builder.addReference(from: 3, to: 4, label: "subscription", ownership: .strong)
    builder.addReference(from: 4, to: 3, label: "downstream", ownership: .strong)
    let analysis = HeapAnalysis(graph: ObjectGraph(builder.snapshot), options: .init(rootsAreComplete: true))
    let report = RunReport(analyses: [("AppPackageTests.xctest (pid 10)", true, analysis)], suppressions: .standard)
    XCTAssertEqual(report.leaks.map(\.isThroughTestCode), [false, true])
    assertMatchesGolden(report.renderText(), named: "run-report-test-code-folded.txt")
    assertMatchesGolden(report.renderText(listsTestCodeLeaks: true), named: "run-report-test-code-listed.txt")
    XCTAssertTrue(report.renderJSON(exitStatus: 2).contains("\"throughTestCode\": true"))
    let sarif = GateOutcome(findings: report.findings, baseline: Baseline()).renderSARIF(toolVersion: "1")
    XCTAssertEqual(sarif.components(separatedBy: "\"level\": \"warning\"").count - 1, 1, sarif)
    XCTAssertEqual(sarif.components(separatedBy: "\"level\": \"error\"").count - 1, 1, sarif)
  }

  /// When only test code leaks, its groups are listed: nothing of the library's comes before them.
  func testRunReport_onlyLeaksThroughTestCode_areListed() {
    var builder = HeapSnapshot.Builder(metadata: HeapSnapshot.Metadata(tool: "test", process: "AppPackageTests.xctest (pid 10)"))
    builder.addObject(id: 1, type: "AppTests.TrackingSubscriber", address: 0x1000, size: 48)
    builder.addReference(from: 1, to: 1, label: "me", ownership: .strong)
    let analysis = HeapAnalysis(graph: ObjectGraph(builder.snapshot), options: .init(rootsAreComplete: true))
    let text = RunReport(analyses: [("AppPackageTests.xctest (pid 10)", true, analysis)], suppressions: .standard).renderText()
    XCTAssertTrue(text.contains("\nLeaks: 1 object in 1 group, all through test code\n"), text)
    XCTAssertTrue(text.contains("  1) 1 × TrackingSubscriber.me → TrackingSubscriber  (1 object"), text)
    XCTAssertFalse(text.contains("--test-code-leaks"), text)
  }
}
