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

/// XCTest keeps every test case alive for the whole run, and with it what its properties hold:
/// an owner and its pet kept here still refer to each other once the test case goes.
final class XCShelterTests: XCTestCase {
  var owner: Owner?

  func testKeptOwnerLeaks() {
    owner = Owner()
    owner?.adopt(Pet(name: "Kept"))
  }
}
