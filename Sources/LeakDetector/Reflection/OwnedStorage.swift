/// A heap block that a value owns without being a snapshot object of its own: the native
/// storage of an `Array`, `Dictionary` or `Set`, or a `String`'s heap buffer. Its bytes count
/// towards the size of the object that holds the value.
///
/// ```swift
/// final class Session { var payload = [UInt8](repeating: 0, count: 256) }
/// reflect(session).ownedStorage  // [OwnedStorage(address: 0x5563494106f0, bytes: 296)]
/// ```
package struct OwnedStorage: Sendable, Equatable {
  /// The storage object's address: storage shared by copies of a value is one block.
  package var address: UInt
  /// Its allocation, as the layout says it (instance size plus tail-allocated elements).
  package var bytes: Int
}
