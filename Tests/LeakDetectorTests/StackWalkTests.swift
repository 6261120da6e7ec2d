import CLeakRuntime
import XCTest

/// The frame-pointer walk on frame records made by hand in this thread's stack.
final class StackWalkTests: XCTestCase {
  /// An optimized program's `main` keeps data in the frame-pointer register; a record whose
  /// caller is such a value (here -8, which a bounds test by addition let through) ends the walk.
  func testStackWalk_callerNearTheTopOfTheAddressSpace_endsTheWalk() {
    let returnAddress: UInt = 0x5555_0000_1234
    let frames = withUnsafeTemporaryAllocation(of: UInt.self, capacity: 2) { record -> [UInt] in
      record[0] = UInt(bitPattern: -8)  // the caller's "frame pointer"
      record[1] = returnAddress
      var frames = [UInt](repeating: 0, count: 8)
      let depth = cleak_stack_walk(UInt(bitPattern: record.baseAddress), &frames, Int32(frames.count))
      return Array(frames.prefix(Int(depth)))
    }
    XCTAssertEqual(frames, [returnAddress], "the record (in this thread's stack) is walked, then the walk ends")
  }

  /// Records that go up the stack are walked to the outermost, whose caller is 0.
  func testStackWalk_recordsGoingUp_areWalkedToTheOutermost() {
    let frames = withUnsafeTemporaryAllocation(of: UInt.self, capacity: 4) { records -> [UInt] in
      let base = UInt(bitPattern: records.baseAddress)
      records[0] = base + 16  // the caller's record, above
      records[1] = 0x5555_0000_1000
      records[2] = 0  // the outermost frame
      records[3] = 0x5555_0000_2000
      var frames = [UInt](repeating: 0, count: 8)
      let depth = cleak_stack_walk(base, &frames, Int32(frames.count))
      return Array(frames.prefix(Int(depth)))
    }
    XCTAssertEqual(frames, [0x5555_0000_1000, 0x5555_0000_2000])
  }
}
