import Foundation
import LeakTestSupport
import XCTest

/// `leak-detector run -- swift test` names the async test that leaked, not the async helper it
/// called, on the `Fixtures/AsyncTests` package: an XCTest `async throws` method and a Swift
/// Testing `async` function each call a helper that sleeps and then allocates a dog and its owner,
/// which keep each other; the XCTest class's async `setUp()` leaks a walker; a Swift Testing test
/// leaves a task waiting on a stream whose continuation it dropped; another XCTest class leaks a
/// leash from a stored property's initial value, a pair of kennel hands from a helper in its
/// extension of XCTestCase, and a bark recorder of its own that keeps itself.
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
    // What a test case's stored property makes is set-up, made for each of its tests.
    XCTAssertTrue(
      testLines.contains("in test KennelTests.XCRosterTests.init(name:testClosure:) (set-up)"), result.standardOutput)
    // A helper in the test target's extension of XCTestCase is the test's code, not XCTest's.
    XCTAssertTrue(testLines.contains("in test KennelTests.XCRosterTests.testHandsLeak()"), result.standardOutput)
    // The cycle of the tests' own bark recorder and the task of a test's closure come after the
    // library's, counted.
    XCTAssertTrue(result.standardOutput.contains(": 4 in library code, 2 through test code\n"), result.standardOutput)
    XCTAssertFalse(result.standardOutput.contains("BarkRecorder"), result.standardOutput)
    XCTAssertTrue(
      result.standardOutput.contains("\nThrough test code: 2 groups (6 objects), a test's own type or closure in each entry"),
      result.standardOutput)
    let listed = try BuiltProgram("leak-detector").run(["run", "--test-code-leaks", "--", "swift", "test", "--skip-build"], in: package)
    let listedTests = listed.standardOutput.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    XCTAssertTrue(
      listed.standardOutput.contains("1 × BarkRecorder.onBark → closure in BarkRecorder.start() → BarkRecorder  (1 object"),
      listed.standardOutput)
    // The task nothing can resume is a leak of the test that made it.
    XCTAssertTrue(
      listed.standardOutput.contains(
        "1 × Task.suspended → await in closure #1 in forgottenFeedingLeaks() → AsyncStream._Storage.state.continuations[0].context → Task"),
      listed.standardOutput)
    XCTAssertTrue(listedTests.contains("in test KennelTests.forgottenFeedingLeaks()"), listed.standardOutput)
  }
}
