import HeapGraph
import XCTest

final class FrameMemoTests: XCTestCase {
  func testValue_isWorkedOutOncePerFrame_andAgainForAnotherFrameAtTheSameAddress() {
    var memo = FrameMemo<Int>()
    var asked = 0
    func length(_ frame: StackFrame) -> Int {
      memo.value(for: frame) { frame in
        asked += 1
        return frame.symbol?.count ?? 0
      }
    }
    let feed = StackFrame(pc: 0x1000, symbol: "App.Feed.load() -> ()", file: "/src/Feed.swift", line: 12)
    XCTAssertEqual(length(feed), 21)
    XCTAssertEqual(length(feed), 21)
    XCTAssertEqual(asked, 1, "the same frame of another stack")
    // Another process's frame at the same address, and frames without one, are worked out anew.
    XCTAssertEqual(length(StackFrame(pc: 0x1000, symbol: "App.run()", file: "/src/App.swift", line: 3)), 9)
    XCTAssertEqual(length(StackFrame(pc: nil, symbol: "main")), 4)
    XCTAssertEqual(length(StackFrame(pc: 0, symbol: "main")), 4)
    XCTAssertEqual(asked, 4)
  }
}
