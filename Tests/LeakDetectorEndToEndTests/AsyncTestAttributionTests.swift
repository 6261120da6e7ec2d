import Foundation
import LeakTestSupport
import XCTest

/// `leak-detector run -- swift test` names the async test that leaked, not the async helper it
/// called, on the `Fixtures/AsyncTests` package: an XCTest `async throws` method and a Swift
/// Testing `async` function each call a helper that sleeps and then allocates a dog and its owner,
/// which keep each other; the XCTest class's async `setUp()` leaks a walker; a Swift Testing test
/// leaves a task waiting on a stream whose continuation it dropped.
final class AsyncTestAttributionTests: XCTestCase {
  private static let package = LeakTestSupport.directory(of: #filePath) + "/Fixtures/AsyncTests"

  override func setUpWithError() throws {
    try RunFixturePrograms.skipUnderSanitizers()
  }

  func testRun_asyncTestsCallingAnAsyncHelper_nameTheTestsAndTheSetUp() throws {
    let package = FileManager.default.temporaryDirectory.appendingPathComponent("async-tests-\(UUID().uuidString)").path
    try FileManager.default.copyItem(atPath: Self.package, toPath: package)
    addTeardownBlock { try? FileManager.default.removeItem(atPath: package) }
    let result = try BuiltProgram("leak-detector").run(["run", "--", "swift", "test"], in: package)
    XCTAssertEqual(result.status, 2, result.standardError)
    let testLines = result.standardOutput.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { $0.hasPrefix("in test") }
    XCTAssertTrue(
      testLines.contains("in tests KennelTests.XCKennelTests.testAsyncBookingLeaks(), KennelTests.asyncBookingLeaks()"),
      result.standardOutput)
    XCTAssertTrue(testLines.contains("in test KennelTests.XCKennelTests.setUp() (set-up)"), result.standardOutput)
    XCTAssertFalse(testLines.contains { $0.contains("Booking.book") }, "the helper is not a test:\n\(result.standardOutput)")
    // The task nothing can resume is a leak of the test that made it.
    XCTAssertTrue(
      result.standardOutput.contains("1 × Task.suspended → await in closure #1 in KennelTests.forgottenFeedingLeaks()"),
      result.standardOutput)
    XCTAssertTrue(testLines.contains("in test KennelTests.forgottenFeedingLeaks()"), result.standardOutput)
  }
}
