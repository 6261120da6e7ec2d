extension HeapSnapshot {
  /// The snapshot with the text of dictionary keys elided from every reference label
  /// (``DataLabel``): what the command-line reports and `strip` show unless told otherwise.
  /// Labels are interned, so this costs a pass over the distinct labels and one over the
  /// references.
  public func withDataRedacted() -> HeapSnapshot {
    guard labels.strings.contains(where: { $0.containsBytes("[\"") }) else { return self }
    var copy = self
    var redacted = StringTable()
    let newIndex = labels.strings.map { redacted.intern(DataLabel.redacted($0)) }
    copy.labels = redacted
    copy.referenceLabels = referenceLabels.map { $0 < 0 ? $0 : newIndex[Int($0)] }
    return copy
  }
}
