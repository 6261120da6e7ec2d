/// What changed in memory between two snapshots of the same program, as Chrome DevTools'
/// comparison view and Eclipse MAT's compare-dumps answer it: objects and bytes per type and per
/// retaining path in each snapshot, the objects allocated between them, and the findings (retain
/// cycles, leak groups) that are new, gone, or have more or fewer instances.
///
/// A retaining path is the shortest chain of strong references from a root to an object, as
/// types and labels, with subscripts collapsed (`feeds[3]` and `feeds[4]` are both `feeds[*]`),
/// so the objects one collection or one field accumulates are counted together (``HeapTally``
/// sums them, as for ``HeapGrowth``). A type's bytes are its objects' own sizes; a path's are
/// what its objects hold along their shortest paths as well.
///
/// ```swift
/// let diff = HeapDiff(old: HeapAnalysis(graph: ObjectGraph(before)), new: HeapAnalysis(graph: ObjectGraph(after)))
/// print(diff.renderText(old: "before.json", new: "after.json"))
/// ```
///
/// ```text
/// From before.json to after.json:
///   objects 8 -> 11 (+3), bytes 380 -> 592 (+212)
/// Names from App are written without their module.
/// Types, by bytes added (2 new, 2 grown, 1 shrunk, 2 gone):
///   grown  Response: 2 -> 5 (+3), bytes 96 -> 240 (+144)
///   grown  Buffer: 1 -> 1 (+0), bytes 100 -> 200 (+100)
///   new    Node: 0 -> 2 (+2), bytes 0 -> 32 (+32)
///   …
/// Retaining paths, by objects added (1 new, 3 grown, 1 shrunk, 1 gone):
///   grown  global App.Cache.shared: Cache.entries[*] → Response: 2 -> 5 (+3), bytes 96 -> 240 (+144)
///   new    global App.session: Session: 0 -> 1 (+1), bytes 0 -> 24 (+24)
///   …
/// Allocated between them (by address, type and generation (newer than 1)): 6 objects, 200 bytes
///   by type:
///     Response: 3 objects, 144 bytes
///     …
///   by allocation site:
///     Server.handle() (Server.swift:12): 3 objects, 144 bytes
///     …
/// Findings (2 new, 2 gone):
///   new    cycle: Node.next → Node.previous → Node (ce6af561eaf00022): 0 -> 1 (+1)
///   …
/// ```
public struct HeapDiff: Sendable {
  /// Objects and bytes in the earlier snapshot (closure values left out).
  public let oldTotal: Amount
  /// Objects and bytes in the later snapshot.
  public let newTotal: Amount
  /// Types whose objects or bytes changed, the most bytes added first (then the most objects
  /// added): new and grown types first, gone and shrunk ones last.
  public let types: [Change<String>]
  /// Retaining paths whose objects or bytes changed, the most objects added first (then the most
  /// bytes added).
  public let paths: [Change<HeapTally.Path>]
  /// The objects of the later snapshot that the earlier one does not have.
  public let allocatedBetween: ObjectsAllocatedBetween
  /// Findings that are new, gone, or have more or fewer instances, the most instances added
  /// first. Their ``Amount/bytes`` are 0.
  public let findings: [Change<HeapFinding>]

  /// Compares two analyses of snapshots of the same program; both should use the same options.
  ///
  /// - Parameters:
  ///   - oldAnalysis: the analysis of the earlier snapshot.
  ///   - newAnalysis: the analysis of the later snapshot; its ``HeapAnalysis/Options/ownCode`` picks
  ///     the lines that allocated the new objects.
  /// - Complexity: that of two ``HeapTally``s, and O(*n*) in the objects of both snapshots.
  public init(old oldAnalysis: HeapAnalysis, new newAnalysis: HeapAnalysis) {
    let old = HeapTally(analysis: oldAnalysis)
    let new = HeapTally(analysis: newAnalysis)
    oldTotal = Amount(count: old.objectCount, bytes: old.byteCount)
    newTotal = Amount(count: new.objectCount, bytes: new.byteCount)
    func amount(_ entry: HeapTally.Entry?) -> Amount { entry.map { Amount(count: $0.count, bytes: $0.bytes) } ?? .none }

    types = Set(old.types.keys).union(new.types.keys).compactMap { name in
      Change(name, before: amount(old.types[name]), after: amount(new.types[name]))
    }.sorted { ($0.byteDelta, $0.countDelta, $1.subject) > ($1.byteDelta, $1.countDelta, $0.subject) }

    paths = Set(old.paths.keys).union(new.paths.keys).compactMap { key -> Change<HeapTally.Path>? in
      guard let path = (new.paths[key] ?? old.paths[key])?.path else { return nil }
      return Change(path, before: amount(old.paths[key]?.entry), after: amount(new.paths[key]?.entry))
    }.sorted {
      ($0.countDelta, $0.byteDelta, $1.subject.description) > ($1.countDelta, $1.byteDelta, $0.subject.description)
    }

    allocatedBetween = ObjectsAllocatedBetween(old: oldAnalysis.graph, new: newAnalysis.graph, ownCode: newAnalysis.options.ownCode)

    func byFingerprint(_ analysis: HeapAnalysis) -> [Fingerprint: HeapFinding] {
      Dictionary(analysis.findings.map { ($0.fingerprint, $0) }) { first, _ in first }
    }
    let oldFindings = byFingerprint(oldAnalysis)
    let newFindings = byFingerprint(newAnalysis)
    findings = Set(oldFindings.keys).union(newFindings.keys).compactMap { fingerprint -> Change<HeapFinding>? in
      guard let finding = newFindings[fingerprint] ?? oldFindings[fingerprint] else { return nil }
      return Change(
        finding, before: Amount(count: oldFindings[fingerprint]?.count ?? 0, bytes: 0),
        after: Amount(count: newFindings[fingerprint]?.count ?? 0, bytes: 0))
    }.sorted {
      ($0.countDelta, $1.subject.kind.order, $1.subject.summary) > ($1.countDelta, $0.subject.kind.order, $0.subject.summary)
    }
  }

  /// Whether anything grew: a type with more objects, or a finding with more instances (`diff`
  /// exits with 2).
  public var hasGrowth: Bool { types.contains(where: \.hasMoreObjects) || findings.contains(where: \.hasMoreObjects) }

  /// Readable names, with the home module of the types, paths and findings that changed (the
  /// text and HTML reports').
  public var nameStyle: NameStyle {
    .readable(
      forTypeNames: types.map(\.subject) + paths.flatMap { $0.subject.links.map(\.typeName) }
        + findings.flatMap { $0.subject.links.map(\.typeName) })
  }
}
