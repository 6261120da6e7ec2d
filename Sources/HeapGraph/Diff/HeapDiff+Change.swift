extension HeapDiff {
  /// A type, a retaining path or a finding whose objects changed between the two snapshots, with
  /// its objects and bytes in each.
  ///
  /// ```text
  /// grown  global App.Cache.shared: Cache.entries[*] → Response: 2 -> 5 (+3), bytes 96 -> 240 (+144)
  /// ```
  public struct Change<Subject: Sendable & Hashable>: Sendable, Hashable {
    /// How a thing changed: decided by its count, and by its bytes when the count stayed.
    public enum Status: String, Sendable, Hashable, CaseIterable {
      /// Only in the later snapshot.
      case new
      /// More objects in the later snapshot, or as many taking more bytes.
      case grown
      /// Fewer objects, or as many taking fewer bytes.
      case shrunk
      /// Only in the earlier snapshot.
      case gone
    }

    /// A type name (``HeapDiff/types``), a path (``HeapDiff/paths``) or a finding
    /// (``HeapDiff/findings``).
    public var subject: Subject
    public var before: Amount
    public var after: Amount
    public var status: Status

    /// The change of `subject` from `before` to `after`; `nil` when nothing changed.
    public init?(_ subject: Subject, before: Amount, after: Amount) {
      guard before != after else { return nil }
      self.subject = subject
      self.before = before
      self.after = after
      status =
        if before.count == 0 && after.count > 0 {
          .new
        } else if after.count == 0 && before.count > 0 {
          .gone
        } else if after.count != before.count {
          after.count > before.count ? .grown : .shrunk
        } else {
          after.bytes > before.bytes ? .grown : .shrunk
        }
    }

    /// Objects added (negative: removed).
    public var countDelta: Int { after.count - before.count }
    /// Bytes added (negative: freed).
    public var byteDelta: Int { after.bytes - before.bytes }
    /// Whether there are more objects than before.
    public var hasMoreObjects: Bool { countDelta > 0 }
  }
}
