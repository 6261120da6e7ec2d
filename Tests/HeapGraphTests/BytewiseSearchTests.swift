import HeapGraph
import XCTest

final class BytewiseSearchTests: XCTestCase {
  func testContainsBytes_findsWordsAnywhere_asContainsDoes() {
    let symbol = "(1) await resume partial function for App.Feed.__allocating_init() -> App.Feed"
    for word in ["(1)", "__allocating_init", "App.Feed", "-> App.Feed", "Feed.__alloc"] {
      XCTAssertTrue(symbol.containsBytes(word), word)
      XCTAssertEqual(symbol.containsBytes(word), symbol.contains(word), word)
    }
    for word in ["__allocating_init()!", "App.Feeds", "XCTest", "(1) await resume partial function for App.Feed.__allocating_init() -> App.Feed."] {
      XCTAssertFalse(symbol.containsBytes(word), word)
    }
    XCTAssertTrue("Café.naïve() in Tëst".containsBytes("ïve() in T"))
    XCTAssertFalse("".containsBytes("a"))
    XCTAssertEqual(symbol.containsBytes(""), symbol.contains(""))
  }
}
