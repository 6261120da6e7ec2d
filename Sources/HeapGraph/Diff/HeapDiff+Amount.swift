extension HeapDiff {
  /// Objects (or a finding's instances) and their bytes in one snapshot.
  public struct Amount: Sendable, Hashable {
    public var count: Int
    /// As far as the snapshot records sizes; 0 for a finding.
    public var bytes: Int

    public init(count: Int, bytes: Int) {
      self.count = count
      self.bytes = bytes
    }

    /// Nothing: what a snapshot without the thing has.
    public static let none = Amount(count: 0, bytes: 0)
  }
}
