import Kennel

/// A helper the async tests call: it awaits, so the concurrency runtime resumes it, and then
/// allocates a dog and its owner, which keep each other.
enum Booking {
  static func book(name: String, nights: Int) async throws -> Owner {
    try await Task.sleep(for: .milliseconds(1))
    let owner = Owner()
    let dog = Dog(name: name)
    dog.owner = owner
    owner.dogs.append(dog)
    return owner
  }
}
