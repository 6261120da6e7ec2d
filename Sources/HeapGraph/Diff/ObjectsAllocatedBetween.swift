/// The objects of a later snapshot that were allocated after an earlier one was taken, grouped by
/// type and by the line that allocated them: what a scenario run between the two snapshots left
/// behind, as Chrome DevTools' "objects allocated between snapshots" shows it.
///
/// An object is new when the earlier snapshot has no object of its type at its address (at its
/// id, when the snapshots record no addresses), or when the allocation tracker marked a
/// generation between the snapshots (``HeapSnapshot/Object/generation``) and the object's is
/// newer than the earlier snapshot's newest: that also catches an address freed and reused by an
/// object of the same type. Closure values are left out: they are no allocations.
///
/// ```text
/// Allocated between them (by address, type and generation (newer than 1)): 6 objects, 200 bytes
///   by type:
///     Response: 3 objects, 144 bytes
///     Node: 2 objects, 32 bytes
///     Session: 1 object, 24 bytes
///   by allocation site:
///     Server.handle() (Server.swift:12): 3 objects, 144 bytes
///     Server.open() (Server.swift:20): 1 object, 24 bytes
///     without a stack: 2 objects, 32 bytes
/// ```
public struct ObjectsAllocatedBetween: Sendable, Hashable {
  /// How the new objects were told from the old ones.
  public enum Rule: Sendable, Hashable {
    /// By address (or id) and type.
    case identity
    /// By address and type, and by generation: those newer than `after`, the earlier
    /// snapshot's newest generation.
    case identityAndGeneration(after: Int)
  }

  /// Objects of one type, or allocated at one line, and their bytes.
  public struct Group: Sendable, Hashable {
    /// The type name (``ObjectsAllocatedBetween/byType``), or the site as `file:line function` (``ObjectsAllocatedBetween/bySite``).
    public var name: String
    /// The line that allocated them (``ObjectsAllocatedBetween/bySite``).
    public var site: StackFrame?
    public var count: Int
    public var bytes: Int

    mutating func add(_ bytes: Int) {
      count += 1
      self.bytes.addSaturating(bytes)
    }
  }

  public let rule: Rule
  /// The new objects and their bytes.
  public let total: HeapDiff.Amount
  /// The new objects by type, the most bytes first (the most objects when sizes are unknown).
  public let byType: [Group]
  /// The new objects by the line that allocated them, in the same order; objects without a stack
  /// are in ``withoutSite``.
  public let bySite: [Group]
  /// The new objects the snapshot has no stack for.
  public let withoutSite: HeapDiff.Amount

  /// The objects of `new` allocated after `old` was taken; sites are the package's own lines
  /// where a stack has one (`ownCode`).
  ///
  /// - Complexity: O(*n* + *m*) for *n* and *m* objects in the two graphs.
  public init(old: ObjectGraph, new: ObjectGraph, ownCode: OwnCode = OwnCode(packageDirectory: nil)) {
    struct Identity: Hashable {
      var address: UInt64?
      var id: Int64?
      var typeName: String
    }
    func identity(of node: Int, in graph: ObjectGraph) -> Identity {
      let address = graph.address(of: node)
      return Identity(address: address, id: address == nil ? graph.objectID(of: node) : nil, typeName: graph.typeName(of: node))
    }
    // Generations count only when one was marked between the snapshots: a process that never
    // marks one has all its objects in the first.
    let newestOld = old.nodes.lazy.compactMap(old.generation(of:)).max()
    let newestNew = new.nodes.lazy.compactMap(new.generation(of:)).max()
    let generationMarked = newestOld.flatMap { old in newestNew.map { $0 > old } } ?? false
    rule = generationMarked ? .identityAndGeneration(after: newestOld!) : .identity
    let oldObjects = Set(old.nodes.map { identity(of: $0, in: old) })
    var sites = AllocationSites(graph: new, ownCode: ownCode)
    var types: [String: Group] = [:]
    var bySite: [String: Group] = [:]
    var total = HeapDiff.Amount.none
    var withoutSite = HeapDiff.Amount.none
    for node in new.nodes where !new.isClosureValue(node) {
      let isNew =
        !oldObjects.contains(identity(of: node, in: new))
        || (generationMarked && new.generation(of: node).map { $0 > newestOld! } ?? false)
      guard isNew else { continue }
      let bytes = new.size(of: node) ?? 0
      let typeName = new.typeName(of: node)
      total.count += 1
      total.bytes.addSaturating(bytes)
      types[typeName, default: Group(name: typeName, count: 0, bytes: 0)].add(bytes)
      if let site = sites.site(of: node) {
        bySite[HeapTally.siteKey(site), default: Group(name: HeapTally.siteKey(site), site: site, count: 0, bytes: 0)].add(bytes)
      } else {
        withoutSite.count += 1
        withoutSite.bytes.addSaturating(bytes)
      }
    }
    func largestFirst(_ groups: Dictionary<String, Group>.Values) -> [Group] {
      groups.sorted { ($0.bytes, $0.count, $1.name) > ($1.bytes, $1.count, $0.name) }
    }
    self.total = total
    self.byType = largestFirst(types.values)
    self.bySite = largestFirst(bySite.values)
    self.withoutSite = withoutSite
  }

  /// How ``rule`` reads in a report: `by address and type`, `by address, type and generation (newer than 4)`.
  public var ruleDescription: String {
    switch rule {
    case .identity: "by address and type"
    case .identityAndGeneration(let after): "by address, type and generation (newer than \(after))"
    }
  }
}
