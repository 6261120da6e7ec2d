import LeakDetectorRun
import XCTest

/// Which processes of `swift test` run tests, and which only list them.
final class SwiftTestProcessesTests: XCTestCase {
  func testSwiftTest_isTheSwiftDriverWithTest_whateverItsPath() {
    XCTAssertTrue(SwiftTestProcesses.isSwiftTest(["swift", "test"]))
    XCTAssertTrue(SwiftTestProcesses.isSwiftTest(["/opt/swift/usr/bin/swift", "test", "-c", "release"]))
    XCTAssertFalse(SwiftTestProcesses.isSwiftTest(["swift", "build"]))
    XCTAssertFalse(SwiftTestProcesses.isSwiftTest(["./swift-test", "test"]))
    XCTAssertFalse(SwiftTestProcesses.isSwiftTest([]))
  }

  func testRunners_areTestBundlesAndTheTestingHelper() {
    for runner in ["PetsPackageTests.xctest", "swiftpm-testing-helper"] { XCTAssertTrue(SwiftTestProcesses.isRunner(runner), runner) }
    for other in ["swift-build", "swiftc", "Server", "xctest.sh"] { XCTAssertFalse(SwiftTestProcesses.isRunner(other), other) }
  }

  func testListingRuns_areTheOnesAskedForTheTestList() {
    XCTAssertTrue(SwiftTestProcesses.onlyListsTests(["/p/.build/debug/PetsPackageTests.xctest", "--dump-tests-json"]))
    XCTAssertTrue(SwiftTestProcesses.onlyListsTests(["PetsPackageTests.xctest", "--testing-library", "swift-testing", "--list-tests"]))
    XCTAssertFalse(SwiftTestProcesses.onlyListsTests(["PetsPackageTests.xctest", "--testing-library", "swift-testing"]))
  }
}
