import Foundation
import XCTest

/// An `XCTestCase` whose every test is checked for leaks in generation mode: everything allocated
/// during the test and still alive after it (past the grace period and the allow list) fails the
/// test, at the leaked object's allocation site; only the top-most object of a leaked tree is
/// reported. Override ``leakCheckConfiguration`` to tune it.
///
/// ```swift
/// final class FeedTests: LeakTestCase {
///   func testFeed_loadsAndReleases() { let feed = Feed(); feed.load() }
/// }
/// ```
/// ```text
/// Feed.swift:14: error: -[FeedTests testFeed_loadsAndReleases] : Leak detected: MyApp.Feed (0x…) is still alive 0.1 s after the test.
/// It is held by a retain cycle (2 objects): …
/// ```
open class LeakTestCase: XCTestCase {
  /// The configuration of this class's checks.
  open var leakCheckConfiguration: LeakCheckConfiguration { LeakCheckConfiguration() }

  override open func invokeTest() {
    let configuration = leakCheckConfiguration
    checkingGeneration(configuration: configuration, location: ("\(type(of: self))", 0), testCase: self) {
      super.invokeTest()
    }
  }
}

/// Runs `body` in a fresh generation of the allocation tracker (starting it if needed), then
/// reports what survived.
func checkingGeneration<Result>(
  configuration: LeakCheckConfiguration, location: (file: String, line: Int), testCase: XCTestCase?,
  _ body: () throws -> Result
) rethrows -> Result {
  guard let check = GenerationCheck(configuration: configuration) else { return try body() }
  let result: Result
  do { result = try body() } catch {
    check.cancel()
    throw error
  }
  check.finish(location: location, testCase: testCase)
  return result
}

/// Checks that everything allocated in `body` is gone once it returns (generation mode); usable
/// in XCTest and Swift Testing tests. Leaked objects fail the test at their allocation site.
///
/// ```swift
/// withLeakChecking {
///   let screen = ProfileScreen()
///   screen.show()
///   screen.dismiss()
/// }
/// ```
public func withLeakChecking<Result>(
  _ configuration: LeakCheckConfiguration = LeakCheckConfiguration(), file: StaticString = #filePath, line: UInt = #line,
  _ body: () throws -> Result
) rethrows -> Result {
  try checkingGeneration(configuration: configuration, location: ("\(file)", Int(line)), testCase: nil, body)
}
