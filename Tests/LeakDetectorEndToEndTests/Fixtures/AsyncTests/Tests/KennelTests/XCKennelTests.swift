import Kennel
import XCTest

final class XCKennelTests: XCTestCase {
  override func setUp() async throws {
    await Task.yield()
    Walker().plan()
  }

  func testAsyncBookingLeaks() async throws {
    let owner = try await Booking.book(name: "Rex", nights: 2)
    XCTAssertEqual(owner.dogs.count, 1)
  }
}
