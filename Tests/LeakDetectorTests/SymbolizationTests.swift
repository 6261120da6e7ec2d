import Foundation
import LeakDetector
import XCTest

/// Return addresses named by the symbol tables, through each module's index sorted once: the
/// function holding an address, from its first byte on, in the Swift runtime and in this test
/// program.
final class SymbolizationTests: XCTestCase {
  func testFrame_addressesInsideKnownFunctions_areNamedByThem() throws {
    let program = try XCTUnwrap(dlopen(nil, RTLD_NOW))  // the program and what it loaded
    var checked = 0
    // The Swift runtime's entry points: sanitizers replace the C library's with their own.
    for name in ["swift_retain", "swift_release", "swift_getTypeByMangledNameInContext", "swift_conformsToProtocol", "swift_dynamicCast"] {
      let start = try XCTUnwrap(dlsym(program, name), name)
      for offset in [0, 1, 7] {
        let frame = Symbolicator.shared.frame(at: UInt(bitPattern: start) + UInt(offset))
        XCTAssertEqual(frame.symbol, name, "\(name)+\(offset)")
        checked += 1
      }
    }
    let fixture = unsafeBitCast(symbolizationFixture as @convention(c) () -> Int32, to: UInt.self)
    XCTAssertEqual(Symbolicator.shared.frame(at: fixture + 1).symbol, "symbolizationFixture")
    XCTAssertEqual(checked, 15)
  }
}

@_cdecl("symbolizationFixture") @inline(never) func symbolizationFixture() -> Int32 { 42 }
