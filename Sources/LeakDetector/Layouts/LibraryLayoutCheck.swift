/// A start-up check of one library's private layouts that the readers rely on, against an
/// object the check makes itself (``DispatchLayoutCheck``, ``ConcurrencyLayoutCheck``): its facts
/// are read once, in the program's process, and the first that does not match turns those
/// readers off, with one diagnostic a capture records.
package protocol LibraryLayoutCheck {
  /// The first fact that does not match, or `nil` (a stored `static let`: checked once).
  static var mismatch: RuntimeLayoutCheck.Fact? { get }
  /// Whose layouts they are: `libdispatch's layouts`.
  static var layouts: String { get }
  /// What is not read on a mismatch: `what Dispatch sources and queues hold`.
  static var unread: String { get }
}

extension LibraryLayoutCheck {
  /// The diagnostic that says why the readers read nothing, or `nil` when they read.
  package static var failure: String? { mismatch.map(diagnostic) }

  /// The diagnostic for the fact `mismatch`.
  package static func diagnostic(_ mismatch: RuntimeLayoutCheck.Fact) -> String {
    "\(layouts) are not the ones this build reads (Swift 6.3.1): \(mismatch.name) is \(mismatch.found),"
      + " expected \(mismatch.expected); \(unread) was not read"
  }

  /// A fact's value as the diagnostic writes it: `0x7f3a10`, or `nothing readable`.
  static func hex(_ value: UInt?) -> String {
    value.map { "0x" + String($0, radix: 16) } ?? "nothing readable"
  }
}
