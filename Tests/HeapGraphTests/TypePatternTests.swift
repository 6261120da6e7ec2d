import HeapGraph
import XCTest

/// The one matcher of type patterns (suppression rules and the test integrations' allowed and
/// known-leaking types) and its one list of framework types.
final class TypePatternTests: XCTestCase {
  func testTypePattern_matchesWholeNamesWithStarsAndQuestionMarks() {
    XCTAssertTrue(TypePattern("MyApp.Cache").matches("MyApp.Cache"))
    XCTAssertFalse(TypePattern("MyApp.Cache").matches("MyApp.CacheEntry"))
    XCTAssertTrue(TypePattern("MyApp.Cache*").matches("MyApp.CacheEntry"))
    XCTAssertTrue(TypePattern("*.Entry").matches("MyApp.Cache.Entry"))
    XCTAssertFalse(TypePattern("*.Entry").matches("MyApp.Cache.EntryBox"))
    XCTAssertTrue(TypePattern("Swift.Array<?>").matches("Swift.Array<A>"))
    XCTAssertTrue(TypePattern("*").matches(""))
    XCTAssertFalse(TypePattern("").matches("A"))
    // Names are matched as UTF-8 bytes: `?` stands for one whole character, however many bytes.
    XCTAssertTrue(TypePattern("App.Caf?").matches("App.Café"))
    XCTAssertFalse(TypePattern("App.Caf??").matches("App.Café"))
    XCTAssertTrue(TypePattern("*é.Entry").matches("App.Café.Entry"))
    XCTAssertTrue(TypePattern("*?.Entry").matches("App.τ.Entry"))
    XCTAssertFalse(TypePattern("App.Café").matches("App.Cafe"))
    let literal: TypePattern = "Foundation.*"
    XCTAssertEqual(literal, TypePattern("Foundation.*"))
    XCTAssertEqual(literal.description, "Foundation.*")
  }

  func testTypePattern_frameworkTypes_coverRuntimeTestFrameworksAndTheirClosures() {
    let patterns = TypePattern.frameworkTypes
    for name in [
      "Swift._ContiguousArrayStorage<Swift.Int>", "Foundation.NSLock", "XCTest.XCTestCase",
      "closure #1 in XCTest.XCTestCase.wait(for: [XCTestExpectation])", "closure #2 in Testing.Runner.run()",
    ] {
      XCTAssertTrue(patterns.contains { $0.matches(name) }, name)
    }
    for name in ["App.Swiftly", "closure #1 in App.Feed.load()", "Swiftly.Cache"] {
      XCTAssertFalse(patterns.contains { $0.matches(name) }, name)
    }
    XCTAssertEqual(Suppressions.standard.rules.map(\.pattern), patterns.map(\.pattern))
  }
}
