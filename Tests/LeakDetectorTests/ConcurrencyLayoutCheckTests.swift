import LeakDetector
import XCTest

/// The start-up check of the task layouts passes on this toolchain, and a mismatch says which
/// fact and what was found.
final class ConcurrencyLayoutCheckTests: XCTestCase {
  func testTaskLayouts_matchThisToolchain() {
    XCTAssertNil(ConcurrencyLayoutCheck.mismatch.map(ConcurrencyLayoutCheck.diagnostic), "the task layouts are checked")
    let facts = ConcurrencyLayoutCheck.facts()
    XCTAssertEqual(facts.map(\.name), ["a checked continuation's task", "the closure a task runs", "where a waiting task waits"])
    XCTAssertEqual(facts.filter { !$0.matches }.map(\.name), [])
  }

  func testMismatch_namesTheFactAndWhatWasFound() throws {
    var fact = try XCTUnwrap(ConcurrencyLayoutCheck.facts().first)
    fact.found = "0x0"
    XCTAssertEqual(
      ConcurrencyLayoutCheck.diagnostic(fact),
      "the concurrency runtime's task layouts are not the ones this build reads (Swift 6.3.1): a checked continuation's task is 0x0,"
        + " expected \(fact.expected); what tasks hold and where they wait was not read")
  }
}
