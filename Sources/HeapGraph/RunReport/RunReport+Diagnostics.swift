extension RunReport.Process {
  /// One diagnostic of a process's capture, with how many times the capture said it.
  public struct RepeatedDiagnostic: Sendable, Hashable {
    public var diagnostic: CaptureDiagnostic
    public var occurrences: Int
  }

  /// The capture's diagnostics, each said once: the same kind, message and type repeated is one
  /// entry with its number of occurrences, in the order each first appeared.
  public var distinctDiagnostics: [RepeatedDiagnostic] {
    struct Key: Hashable {
      var kind: CaptureDiagnostic.Kind?
      var message: String
      var typeName: String?
    }
    var order: [Key] = []
    var byKey: [Key: RepeatedDiagnostic] = [:]
    for diagnostic in diagnostics {
      let key = Key(kind: diagnostic.kind, message: diagnostic.message, typeName: diagnostic.typeName)
      if byKey[key] == nil {
        order.append(key)
        byKey[key] = RepeatedDiagnostic(diagnostic: diagnostic, occurrences: 0)
      }
      byKey[key]!.occurrences += 1
    }
    return order.map { byKey[$0]! }
  }

  /// How many diagnostics of each kind the capture made (`other` for one without a kind).
  public var diagnosticCounts: [String: Int] {
    diagnostics.reduce(into: [:]) { $0[$1.kind?.rawValue ?? "other", default: 0] += 1 }
  }
}
