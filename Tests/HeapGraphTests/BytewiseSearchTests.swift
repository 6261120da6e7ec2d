import HeapGraph
import XCTest

final class BytewiseSearchTests: XCTestCase {
  func testContainsBytes_findsWordsAnywhere_asContainsDoes() {
    let symbol = "(1) await resume partial function for App.Feed.__allocating_init() -> App.Feed"
    for word in ["(1)", "__allocating_init", "App.Feed", "-> App.Feed", "Feed.__alloc"] {
      XCTAssertTrue(symbol.containsBytes(word), word)
      XCTAssertEqual(symbol.containsBytes(word), symbol.contains(word), word)
    }
    for word in [
      "__allocating_init()!", "App.Feeds", "XCTest", "(1) await resume partial function for App.Feed.__allocating_init() -> App.Feed.",
    ] {
      XCTAssertFalse(symbol.containsBytes(word), word)
    }
    XCTAssertTrue("Café.naïve() in Tëst".containsBytes("ïve() in T"))
    XCTAssertFalse("".containsBytes("a"))
    XCTAssertEqual(symbol.containsBytes(""), symbol.contains(""))
  }

  func testContainsBytes_afterAFalseStart_andAtTheEnd() {
    XCTAssertTrue("aaab".containsBytes("aab"))
    XCTAssertTrue("closure #1 in f".containsBytes(" in f"))
    XCTAssertFalse("closure #1 in f".containsBytes(" in fg"))
    XCTAssertTrue("x".containsBytes("x"))
  }

  func testFirstRangeOfBytes_isTheRangeOfTheFirstOccurrence_inASlice() {
    let name = "static App.(_select in _6F9E).run(in _: Int)"
    let slice = name[name.firstIndex(of: "(")!...]
    let range = slice.utf8.firstRange(ofBytes: "in _")
    XCTAssertEqual(range.map { String(slice[$0]) }, "in _")
    XCTAssertEqual(range.map { name.distance(from: name.startIndex, to: $0.lowerBound) }, 20)
    XCTAssertNil(slice.utf8.firstRange(ofBytes: "static"), "before the slice")
    XCTAssertNil(slice.utf8.firstRange(ofBytes: ""))
    let accented = "Café.naïve() in Tëst"
    XCTAssertEqual(accented[...].utf8.firstRange(ofBytes: "ïve").map { String(accented[$0]) }, "ïve")
  }
}
