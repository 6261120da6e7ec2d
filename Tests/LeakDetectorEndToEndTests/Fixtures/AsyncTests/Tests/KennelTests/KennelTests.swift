import Kennel
import Testing

@Test func asyncBookingLeaks() async throws {
  await Task.yield()
  let owner = try await Booking.book(name: "Fido", nights: 1)
  #expect(owner.dogs.count == 1)
}
