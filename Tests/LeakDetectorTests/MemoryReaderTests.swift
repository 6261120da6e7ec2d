import LeakDetector
import XCTest

final class MemoryReaderTests: XCTestCase {
  func testReadWord_mappedAddress_returnsTheWord() {
    let pointer = UnsafeMutablePointer<UInt>.allocate(capacity: 1)
    defer { pointer.deallocate() }
    pointer.pointee = 0xDEAD_BEEF_CAFE
    XCTAssertEqual(MemoryReader.readWord(at: UInt(bitPattern: pointer)), 0xDEAD_BEEF_CAFE)
  }

  func testReadWord_unmappedOrHostileAddresses_returnNilInsteadOfCrashing() {
    for address: UInt in [0, 0x10, 0xFFFF_FFFF_FFFF_FFF0, 0x8000_0000_0000_0000, 0x00FF_FFFF_FFFF_FFF8] {
      XCTAssertNil(MemoryReader.readWord(at: address), "0x\(String(address, radix: 16))")
    }
  }
}
