import Foundation
import LeakDetector
import XCTest

/// Return addresses named by the symbol tables, through each module's index sorted once: the
/// function holding an address, from its first byte to its last, in the Swift runtime, the C
/// library and this test program.
final class SymbolizationTests: XCTestCase {
  func testFrame_addressesInsideKnownFunctions_areNamedByThem() throws {
    let program = try XCTUnwrap(dlopen(nil, RTLD_NOW))  // the program and what it loaded
    var checked = 0
    for name in ["swift_retain", "swift_release", "swift_allocObject", "swift_getTypeByMangledNameInContext", "pthread_create", "pthread_join"] {
      let start = try XCTUnwrap(dlsym(program, name), name)
      for offset in [0, 1, 7] {
        let frame = Symbolicator.shared.frame(at: UInt(bitPattern: start) + UInt(offset))
        // The C library's full symbol table names the symbol's version (`pthread_create@GLIBC_2.2.5`).
        XCTAssertEqual(frame.symbol?.split(separator: "@").first.map(String.init), name, "\(name)+\(offset)")
        checked += 1
      }
    }
    let fixture = unsafeBitCast(symbolizationFixture as @convention(c) () -> Int32, to: UInt.self)
    XCTAssertEqual(Symbolicator.shared.frame(at: fixture + 1).symbol, "symbolizationFixture")
    XCTAssertEqual(checked, 18)
  }
}

@_cdecl("symbolizationFixture") @inline(never) func symbolizationFixture() -> Int32 { 42 }
