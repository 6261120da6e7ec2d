/// Foundation's private notification-centre storage, as the notification reader reads it where
/// reflection cannot: the value of a `Mutex` field (described to reflection as `()` on Linux)
/// and the fields of an observer token's `_NotificationObserverToken`.
///
/// Read from swift-foundation and swift-corelibs-foundation of Swift 6.3.1
/// (swift-6.3.1-RELEASE: `NotificationCenter.swift` of FoundationEssentials, the `Mutex` of the
/// Synchronization module), Linux x86_64. The fields themselves are found by name
/// (`RuntimeReflector.storedPropertyOffset(named:ofObjectAt:)`); offsets here are in bytes from
/// the start of those fields.
enum FoundationLayout {
  /// `Mutex<Value>`: its value follows its 32-bit lock word, aligned to a word.
  enum Mutex {
    static let value: UInt = 8
  }

  /// `_NotificationObserverToken`: the registration's key, its name and the observed object's
  /// identifier.
  enum ObserverToken {
    static let key: UInt = 0
    /// A `String?`.
    static let name: UInt = 8
    /// An `ObjectIdentifier?`.
    static let objectID: UInt = 24
  }
}
