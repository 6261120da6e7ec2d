import CLeakRuntime
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// The frame-pointer walk on frame records made by hand in the walking thread's stack.
final class StackWalkTests: XCTestCase {
  /// An optimized program's `main` keeps data in the frame-pointer register; a record whose
  /// caller is such a value (here -8, which a bounds test by addition let through) ends the walk.
  func testStackWalk_callerNearTheTopOfTheAddressSpace_endsTheWalk() {
    let frames = walkOnAStackOfItsOwn { _ in [UInt(bitPattern: -8), 0x5555_0000_1234] }
    XCTAssertEqual(frames, [0x5555_0000_1234], "the record (in the thread's stack) is walked, then the walk ends")
  }

  /// Records that go up the stack are walked to the outermost, whose caller is 0.
  func testStackWalk_recordsGoingUp_areWalkedToTheOutermost() {
    let frames = walkOnAStackOfItsOwn { first in [first + 16, 0x5555_0000_1000, 0, 0x5555_0000_2000] }
    XCTAssertEqual(frames, [0x5555_0000_1000, 0x5555_0000_2000])
  }

  /// The frames `cleak_stack_walk` finds from the records `records(first)` written at `first`, in
  /// the low end of a stack this test maps, walked on a thread that runs on that stack (its own
  /// frames are at the other end). The test's own frames would not do: AddressSanitizer moves
  /// them to a stack of its own, outside the thread's.
  private func walkOnAStackOfItsOwn(_ records: (_ first: UInt) -> [UInt]) -> [UInt] {
    let size = 1 << 20
    guard let stack = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), stack != MAP_FAILED else {
      XCTFail("cannot map a stack")
      return []
    }
    defer { munmap(stack, size) }
    let offset = 4096
    let first = UInt(bitPattern: stack) + UInt(offset)
    for (index, word) in records(first).enumerated() {
      stack.storeBytes(of: word, toByteOffset: offset + index * MemoryLayout<UInt>.stride, as: UInt.self)
    }
    final class Walk {
      let first: UInt
      var frames: [UInt] = []
      init(first: UInt) { self.first = first }
    }
    let walk = Walk(first: first)
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setstack(&attributes, stack, size)
    var thread = pthread_t()
    let started = pthread_create(
      &thread, &attributes,
      { context in
        let walk = Unmanaged<Walk>.fromOpaque(context!).takeRetainedValue()
        var frames = [UInt](repeating: 0, count: 8)
        let depth = cleak_stack_walk(walk.first, &frames, Int32(frames.count))
        walk.frames = Array(frames.prefix(Int(depth)))
        return nil
      }, Unmanaged.passRetained(walk).toOpaque())
    XCTAssertEqual(started, 0, "cannot start a thread on the mapped stack")
    if started == 0 { pthread_join(thread, nil) }
    return walk.frames
  }
}
