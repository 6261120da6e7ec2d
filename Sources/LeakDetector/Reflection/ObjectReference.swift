import HeapGraph

/// One outgoing reference of a heap object, as the Swift runtime lays it out.
///
/// ```swift
/// for reference in references(of: feed) { print(reference) }
/// ```
/// ```text
/// onUpdate -> closure #1 in MyApp.Feed.load() (strong)
/// delegate -> MyApp.FeedController (weak)
/// ```
public struct ObjectReference: Sendable, Hashable, CustomStringConvertible {
  /// How the source names the target: `delegate`, `state.loaded.0`, `items[3]`,
  /// `handlers["key"]`, `capture #0: Feed`.
  public var label: String
  /// Whether the reference retains its target.
  public var ownership: Ownership
  /// The target's address.
  public var targetAddress: UInt
  /// What the target is.
  public var targetKind: HeapObjectKind
  /// The target's type name; a closure context is named by its function.
  public var targetTypeName: String
  /// For a reference held by a closure value: the closure's code address.
  var closureFunction: UInt = 0
  /// Whether it was read from untyped memory (a task's async frames), where a word that points
  /// to an object may be a stale slot: a capture keeps it only where the target's reference
  /// count has a retain that no precise reference explains.
  public internal(set) var isConservative = false
  /// Whether the target's retain is this reference's own (see `RawReference.retainsTarget`): a
  /// capture counts only those when it compares reference counts with references.
  var retainsTarget = true

  public init(label: String, ownership: Ownership, targetAddress: UInt, targetKind: HeapObjectKind, targetTypeName: String) {
    self.label = label
    self.ownership = ownership
    self.targetAddress = targetAddress
    self.targetKind = targetKind
    self.targetTypeName = targetTypeName
  }

  public var description: String {
    "\(label) -> \(targetTypeName) (\(ownership.rawValue)\(isConservative ? ", conservative" : ""))"
  }
}
