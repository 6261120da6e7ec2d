import CLeakRuntime
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

  /// The symbol index names every address as libdwfl's linear lookup does: sampled through a
  /// stretch of libswiftCore's code (thousands of symbols, aliases and local labels) and of this
  /// test program's.
  func testSymbolIndex_namesAddressesAsLibdwflDoes() throws {
    let program = try XCTUnwrap(dlopen(nil, RTLD_NOW))
    for (name, span, step) in [("swift_retain", 1 << 20, 1009), ("swift_conformsToProtocol", 1 << 16, 31)] {
      let start = UInt(bitPattern: try XCTUnwrap(dlsym(program, name)))
      var checked = 0
      let disagreements = cleak_symbol_index_disagreements(start - UInt(span / 2), start + UInt(span / 2), UInt(step), &checked)
      XCTAssertGreaterThan(checked, span / step / 2, name)
      XCTAssertEqual(disagreements, 0, "around \(name), of \(checked)")
    }
    let fixture = unsafeBitCast(symbolizationFixture as @convention(c) () -> Int32, to: UInt.self)
    var checked = 0
    XCTAssertEqual(cleak_symbol_index_disagreements(fixture - (1 << 15), fixture + (1 << 15), 31, &checked), 0)
    XCTAssertGreaterThan(checked, 1_000)
  }

  /// Naming a frame with its file and line looks for a separate debug file of a module that has
  /// no DWARF (libswiftCore), on this machine only: libdw's standard search would then ask
  /// debuginfod, which loads libcurl and GnuTLS into the program (and asks a server when
  /// DEBUGINFOD_URLS is set). Where the client is not installed (it comes with gdb on Debian),
  /// libdw could not load it anyway.
  func testFrame_ofAModuleWithoutDebugInfo_neverLoadsTheDebuginfodClient() throws {
    let client = "libdebuginfod.so.1"
    let program = try XCTUnwrap(dlopen(nil, RTLD_NOW))
    let start = UInt(bitPattern: try XCTUnwrap(dlsym(program, "swift_conformsToProtocol")))
    let frame = Symbolicator.shared.frame(at: start + 3)
    XCTAssertEqual(frame.symbol, "swift_conformsToProtocol")
    XCTAssertNil(dlopen(client, RTLD_NOW | RTLD_NOLOAD), "\(client) was loaded into the program")
  }
}

@_cdecl("symbolizationFixture") @inline(never) func symbolizationFixture() -> Int32 { 42 }
