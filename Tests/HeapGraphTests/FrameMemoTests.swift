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

  /// An inlined function's frame and the frame that holds its code share a program counter:
  /// stacks that alternate between them ask once for each.
  func testValue_inlinedFramesAtOneAddress_areEachWorkedOutOnce() {
    var memo = FrameMemo<Bool>()
    var asked = 0
    let inlined = StackFrame(pc: 0x1400, symbol: "main.House.init() -> main.House", file: "/src/Inlined.swift", line: 16, inlined: true)
    let holder = StackFrame(pc: 0x1400, symbol: "main.plant() -> ()", file: "/src/Inlined.swift", line: 24)
    for _ in 0..<3 {
      for frame in [inlined, holder] {
        _ = memo.value(for: frame) { frame in
          asked += 1
          return frame.inlined
        }
      }
    }
    XCTAssertEqual(asked, 2)
  }
}
