import XCTest
import Pets

final class XCPetsTests: XCTestCase {
  func testAdoptLeaks() {
    let owner = Owner()
    owner.adopt(Pet(name: "Rex"))
    XCTAssertEqual(owner.pets.count, 1)
  }

  func testFriendsDoNotLeak() {
    let a = Pet(name: "a"), b = Pet(name: "b")
    a.friend = b; b.friend = a
    XCTAssertNotNil(a.friend)
  }
}
