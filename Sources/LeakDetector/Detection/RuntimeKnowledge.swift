/// What the detector knows about library types whose retention reflection cannot read from
/// metadata alone: data, not code paths, so adding a case is adding a row.
enum RuntimeKnowledge {
  /// Stored `Unmanaged` references that in fact retain their target
  /// (`Unmanaged.passRetained`), keyed by the label's first component. swift-corelibs-foundation's
  /// `OperationQueue` keeps its pending operations in such a linked list
  /// (Documentation/LeakIdioms.md, P8), so a queue keeps alive every operation it has not
  /// finished, and whatever their blocks capture.
  static let retainingUnmanagedLabels: Set<String> = [
    "__firstOperation", "__firstPriorityOperation", "__nextOperation", "__nextPriorityOperation",
  ]

  /// Types that retain objects where reflection cannot see them, with where.
  static let opaqueRetainers: [String: String] = [
    "Foundation.Timer": "a scheduled or fired Timer is retained by its run loop, and never released on Linux"
  ]

  /// Whether an `unmanaged` reference labelled `label` retains its target.
  static func unmanagedReferenceRetains(label: String) -> Bool {
    let first = label.prefix { $0 != "." && $0 != "[" }
    return retainingUnmanagedLabels.contains(String(first))
  }

  /// A note for objects of `typeName` whose retention is partly invisible, or `nil`.
  static func opacityNote(for typeName: String) -> String? {
    guard let reason = opaqueRetainers[typeName] else { return nil }
    return "\(typeName): \(reason); what it captures is not visible to reflection"
      + " (declare such references with LeakReflectable or Configuration.referenceProviders)"
  }
}
