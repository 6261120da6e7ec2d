/// One finding of an analysis, in the form CI gates and reports share: a retain cycle, a leak
/// group, or a survivor, identified by a fingerprint that does not depend on addresses.
public struct HeapFinding: Sendable, Hashable {
  public enum Kind: String, Sendable, Hashable {
    case cycle
    case leak
    case survivor

    /// The order of kinds in lists of findings: cycles, leaks, survivors.
    var order: Int {
      switch self {
      case .cycle: 0
      case .leak: 1
      case .survivor: 2
      }
    }
  }

  /// An object of the finding and the reference it holds on the next.
  public struct Link: Sendable, Hashable {
    public var typeName: String
    public var reference: String?

    public init(typeName: String, reference: String?) {
      self.typeName = typeName
      self.reference = reference
    }
  }

  public var kind: Kind
  public var fingerprint: Fingerprint
  /// `A.b -> B.a -> A`, or the survivor's path, with names in full.
  public var summary: String
  /// The objects the summary names, for reports that write names their own way
  /// (``NameStyle/summary(of:)``): a cycle's objects, a leak group's entry cycle or object, a
  /// survivor's path. Empty for findings read from a baseline.
  public var links: [Link] = []
  /// The root that holds a survivor's path (`global App.shared`).
  public var root: String?
  /// What the summary adds in parentheses after the links (`in AppTests.testFeed()`).
  public var note: String?
  /// How many instances (identical cycles or groups).
  public var count: Int
  /// Where an object of the finding was allocated (for code-scanning annotations), when known.
  public var location: StackFrame?
  /// Whether the finding goes through test code (``TestCode``), not the library's: SARIF gives
  /// a new one the level `warning` rather than `error`.
  public var isThroughTestCode = false

  public init(
    kind: Kind, fingerprint: Fingerprint, summary: String, count: Int = 1, location: StackFrame? = nil, links: [Link] = [],
    root: String? = nil, note: String? = nil
  ) {
    self.kind = kind
    self.fingerprint = fingerprint
    self.summary = summary
    self.count = count
    self.location = location
    self.links = links
    self.root = root
    self.note = note
  }

  /// One finding per listed cycle, in the order of `cycles`, located at the first allocation
  /// site among its objects. ``HeapAnalysis/findings`` merges these with the leak findings.
  static func findings(cycles: CycleReport) -> [HeapFinding] {
    cycles.cycles.map { cycle in
      HeapFinding(
        kind: .cycle, fingerprint: cycle.fingerprint, summary: cycle.description, count: 1,
        location: cycle.elements.lazy.compactMap(\.allocationSite.allocationSite).first, links: cycle.links)
    }
  }

  /// One finding per leak group, then one per survivor, of `analysis`: a leak group located at
  /// its entry object's allocation site, a survivor at its own.
  static func findings(leaks analysis: LeakAnalysis, graph: ObjectGraph) -> [HeapFinding] {
    func allocationSite(ofObject id: Int64?) -> StackFrame? {
      guard let id, let node = graph.node(forObjectID: id) else { return nil }
      return graph.allocationStack(of: node)?.frames.allocationSite
    }
    // A leaked task in no cycle: the task, then where it waits.
    func entryLinks(ofObject id: Int64?) -> [Link]? {
      guard let id, let node = graph.node(forObjectID: id) else { return nil }
      return WaitingTask.leakLinks(ofTask: node, in: graph)
    }
    var found: [HeapFinding] = []
    for group in analysis.leakGroups {
      found.append(
        HeapFinding(
          kind: .leak, fingerprint: group.fingerprint, summary: group.summary, count: group.instanceCount,
          location: allocationSite(ofObject: group.entryObjectIDs.first),
          links: group.entryCycle?.links ?? entryLinks(ofObject: group.entryObjectIDs.first)
            ?? [Link(typeName: group.summary, reference: nil)]))
    }
    for survivor in analysis.survivors {
      let path = survivor.path.map(\.description).joined(separator: " -> ")
      found.append(
        HeapFinding(
          kind: .survivor, fingerprint: survivor.fingerprint, summary: "\(survivor.root): \(path) (suspect \(survivor.suspect))",
          count: 1, location: allocationSite(ofObject: survivor.path.last?.objectID),
          links: survivor.path.map(\.link), root: survivor.root))
    }
    return found
  }

  /// `findings` with one finding per fingerprint (instances summed; the first one's summary and
  /// location kept), in a stable order: by kind, summary, then fingerprint.
  public static func merged(_ findings: some Sequence<HeapFinding>) -> [HeapFinding] {
    var byFingerprint: [Fingerprint: HeapFinding] = [:]
    for finding in findings {
      if byFingerprint[finding.fingerprint] == nil {
        byFingerprint[finding.fingerprint] = finding
      } else {
        byFingerprint[finding.fingerprint]!.count += finding.count
      }
    }
    // Indices sorted, not the findings: moving a finding copies every field (a tenth of a
    // second per hundred thousand findings in retains and releases alone).
    let unsorted = Array(byFingerprint.values)
    let keys = unsorted.map { ($0.kind.order, $0.summary, $0.fingerprint) }
    return keys.indices.sorted { keys[$0] < keys[$1] }.map { unsorted[$0] }
  }
}
