/// How a reference holds its target.
///
/// Only ``strong`` references keep an object alive, so only they are edges of a retain cycle.
/// The raw values are the spellings used by the snapshot format (`"ownership": "weak"`).
public enum Ownership: String, Sendable, Hashable, CaseIterable, Codable {
  /// A strong reference: `var delegate: Delegate`, a strong closure capture, a collection element.
  case strong
  /// A `weak` reference (zeroing).
  case weak
  /// An `unowned` (safe) reference.
  case unowned
  /// An `unowned(unsafe)` reference or an `Unmanaged` pointer: not counted as retaining.
  case unmanaged

  /// Whether the reference retains its target, and so may be an edge of a retain cycle.
  public var isRetaining: Bool { self == .strong }
}
