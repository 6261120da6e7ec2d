/// What keeps a heap alive beyond its cycles: objects unreachable from every root (leaked, as
/// `leaks` reports ROOT LEAK / ROOT CYCLE), objects expected dead that a root still reaches
/// (survivors, with their shortest retaining path, as LeakCanary's Shark reports), and retained
/// sizes from the dominator tree.
///
/// ```text
/// Leaks: 5 objects unreachable from every root, in 2 groups
///   1) 1 × Vendor.Pool  (2 objects, 1,048 bytes retained; fingerprint 6a1c94cfb18afabc; first object 20)
///   2) 1 × Cache.entries["a"] → Entry.owner → Cache  (3 objects, 144 bytes retained; fingerprint 387510702306f2fb; first object 10)
///
/// Survivors: 1 object expected dead still reachable
///   1) global App.shared: AppState.feeds[0] → Feed
///      suspect ~~~ AppState.feeds[0]; 80 bytes retained; fingerprint 1aef726e22a7cf71
/// ```
public struct LeakAnalysis: Sendable {
  /// Objects that should be gone, to look for survivors.
  public enum ExpectedDead: Sendable, Hashable {
    /// Objects of tracker generation `atLeast` or later.
    case generation(atLeast: Int)
    /// Objects with these snapshot ids.
    case objects(Set<Int64>)
  }

  /// Objects unreachable from every root, reached from one entry (an object or a cycle no other
  /// leaked object holds); identical groups (same fingerprint) are merged with a count.
  public struct LeakGroup: Sendable, Hashable {
    /// Types and labels of the entry's cycle, or its type: independent of addresses and order.
    public var fingerprint: Fingerprint
    /// The entry's cycle (`A.b -> B.a -> A`) or type name.
    public var summary: String
    /// How many identical groups there are.
    public var instanceCount: Int
    /// Objects in all instances (each entry and what it dominates).
    public var objectCount: Int
    /// Bytes retained by all instances.
    public var retainedSize: Int
    /// The entry object of each instance.
    public var entryObjectIDs: [Int64]
    /// The first instance's entry cycle, with each object's allocation stack; `nil` when the
    /// entry is in no cycle.
    public var entryCycle: RetainCycle?
  }

  /// An object expected dead that a root still reaches.
  public struct Survivor: Sendable, Hashable {
    /// One step of the retaining path: an object and the reference to the next.
    public struct Step: Sendable, Hashable, CustomStringConvertible {
      public var objectID: Int64
      public var typeName: String
      public var reference: String?
      /// For a closure: where it is written (its code's `file:line`), when the snapshot says.
      public var closureSite: StackFrame?

      public init(objectID: Int64, typeName: String, reference: String?, closureSite: StackFrame? = nil) {
        self.objectID = objectID
        self.typeName = typeName
        self.reference = reference
        self.closureSite = closureSite
      }

      /// `Type.label`, or the type alone for the last step.
      public var description: String { typeName + (reference.map { "." + $0 } ?? "") }

      /// The step's type and reference, for ``NameStyle``.
      public var link: HeapFinding.Link { HeapFinding.Link(typeName: typeName, reference: reference) }

      /// The steps of `chain` (nodes of `graph`, each the parent of the next in `tree`).
      static func steps(of chain: [Int], in graph: ObjectGraph, tree: ShortestPathTree) -> [Step] {
        chain.indices.map { index in
          Step(
            objectID: graph.objectID(of: chain[index]), typeName: graph.typeName(of: chain[index]),
            reference: index + 1 < chain.count ? graph.label(ofEdge: Int(tree.parentEdge[chain[index + 1]])) : nil,
            closureSite: graph.kind(of: chain[index]) == .closureContext
              ? graph.allocationStack(of: chain[index])?.frames.allocationSite : nil)
        }
      }
    }
    /// The root that holds the path's first object (`global Feed.shared`).
    public var root: String
    /// From the root's object to the survivor.
    public var path: [Step]
    /// The reference from the last object that may live to the first that should not: the
    /// likely cause (Shark underlines it with `~~~`).
    public var suspect: String
    /// Hash of the suspect reference (source type, label, target type).
    public var fingerprint: Fingerprint
    /// Bytes the survivor retains.
    public var retainedSize: Int
  }

  /// Whether the snapshot lists roots, or its roots are known to be complete (without either,
  /// nothing can be called leaked).
  public let hasRoots: Bool
  /// Objects unreachable from every root.
  public let leakedObjectCount: Int
  /// Leak groups, largest retained size first.
  public let leakGroups: [LeakGroup]
  /// Top-most survivors (one held by another survivor is part of that one's leak).
  public let survivors: [Survivor]

  /// Analyses `graph`; survivors are looked for only if `expectedDead` is given.
  ///
  /// - Complexity: O(*n* + *e*) for reachability and grouping, plus the dominator tree.
  public init(graph: ObjectGraph, expectedDead: ExpectedDead? = nil, rootsAreComplete: Bool = false) {
    self.init(graph: graph, expectedDead: expectedDead, rootsAreComplete: rootsAreComplete, shortestPaths: ShortestPathTree(graph: graph))
  }

  /// Analyses `graph` with its shortest paths from the roots already computed (`tree`), and
  /// its cyclic strongly connected components if they are (`cyclicComponents`, as
  /// ``StronglyConnectedComponents`` finds them for the whole graph).
  ///
  /// With `frameworkTypes`, a cycle of other types that only objects of those types hold (and what
  /// they alone hold: a test case XCTest keeps, its stored properties) is an entry of its own,
  /// not part of the framework's group, which a report may suppress.
  ///
  /// The steps: the unreached components and their entries (``UnreachedComponents``); each
  /// entry described while the dominator tree is computed on another core; then the leak groups
  /// and the survivors, with their retained sizes.
  init(
    graph: ObjectGraph, expectedDead: ExpectedDead?, rootsAreComplete: Bool, shortestPaths tree: ShortestPathTree,
    cyclicComponents: [[Int32]]? = nil, frameworkTypes: Suppressions? = nil
  ) {
    hasRoots = !graph.roots.isEmpty || rootsAreComplete
    let unreached = hasRoots ? graph.nodes.filter { !tree.isReached($0) } : []
    leakedObjectCount = unreached.count { !graph.isClosureValue($0) }
    let components = UnreachedComponents(
      graph: graph, unreached: unreached,
      // A component is unreached whole or not at all.
      cycles: !hasRoots ? [] : cyclicComponents?.filter { !tree.isReached(Int($0[0])) }
        ?? StronglyConnectedComponents(graph: graph, startNodes: unreached).components)
    var entries = components.entries()
    if let frameworkTypes { entries += components.cyclesHeldOnlyByFramework(isFramework: frameworkTypes.suppresses(type:)) }
    // The dominator tree on another core while this one describes the entries.
    let dominatorWork = ConcurrentResult { [entries] in DominatorTree(graph: graph, entries: graph.roots.map(\.node) + entries) }
    let descriptions = Self.describe(entries: entries, of: components)
    let dominators = dominatorWork.value
    leakGroups = Self.leakGroups(entries: entries, descriptions: descriptions, graph: graph, dominators: dominators)
    survivors = expectedDead.map { Self.survivors(expectedDead: $0, graph: graph, tree: tree, dominators: dominators) } ?? []
  }

  /// The groups of `entries` (described by `descriptions`), identical ones (same fingerprint)
  /// merged, largest retained size first.
  private static func leakGroups(
    entries: [Int], descriptions: [(Fingerprint, String, cycle: RetainCycle?)], graph: ObjectGraph, dominators: DominatorTree
  ) -> [LeakGroup] {
    var groups: [Fingerprint: LeakGroup] = [:]
    for (entry, (fingerprint, summary, cycle)) in zip(entries, descriptions) {
      var group = groups[fingerprint] ?? LeakGroup(
        fingerprint: fingerprint, summary: summary, instanceCount: 0, objectCount: 0, retainedSize: 0, entryObjectIDs: [],
        entryCycle: cycle)
      group.instanceCount += 1
      group.objectCount += Int(dominators.retainedCount[entry])
      group.retainedSize.addSaturating(Int(dominators.retainedSize[entry]))
      group.entryObjectIDs.append(graph.objectID(of: entry))
      groups[fingerprint] = group
    }
    return groups.values.sorted {
      ($0.retainedSize, $0.objectCount, $1.fingerprint) > ($1.retainedSize, $1.objectCount, $0.fingerprint)
    }
  }

  /// The objects `expectedDead` names that a root reaches, only the first one on each path (one
  /// held by another survivor is part of that one's leak).
  private static func survivors(
    expectedDead: ExpectedDead, graph: ObjectGraph, tree: ShortestPathTree, dominators: DominatorTree
  ) -> [Survivor] {
    func isExpectedDead(_ node: Int) -> Bool {
      switch expectedDead {
      case .generation(let first): graph.generation(of: node).map { $0 >= first } ?? false
      case .objects(let ids): ids.contains(graph.objectID(of: node))
      }
    }
    let rootByNode = Dictionary(graph.roots.map { ($0.node, $0) }, uniquingKeysWith: { first, _ in first })
    var survivors: [Survivor] = []
    for node in graph.nodes where tree.isReached(node) && isExpectedDead(node) {
      let chain = tree.path(to: node) ?? [node]
      guard !chain.dropLast().contains(where: isExpectedDead) else { continue }  // held by another survivor
      let steps = Survivor.Step.steps(of: chain, in: graph, tree: tree)
      let root = rootByNode[chain[0]]
      let source = chain.count > 1 ? steps[steps.count - 2] : nil
      let suspect = source.map { "\($0.typeName).\($0.reference ?? "?")" } ?? "root \(root?.label ?? root?.kind.rawValue ?? "?")"
      survivors.append(
        Survivor(
          root: [root?.kind.rawValue, root?.label].compactMap { $0 }.joined(separator: " "), path: steps, suspect: suspect,
          fingerprint: Fingerprint(parts: ["survivor", suspect, graph.typeName(of: node)]),
          retainedSize: Int(dominators.retainedSize[node])))
    }
    return survivors
  }

  /// The description of each entry's component, in the order of `entries`.
  private static func describe(
    entries: [Int], of components: UnreachedComponents
  ) -> [(Fingerprint, String, cycle: RetainCycle?)] {
    var previous = [Int32](repeating: -1, count: components.graph.objectCount)
    return entries.map { entry in
      describe(members: components.members(ofComponentOf: entry), components: components, previous: &previous)
    }
  }

  /// The fingerprint and summary of a leak group's entry (its component's `members`): the
  /// smallest of the shortest cycles through the members of the first type name, in canonical
  /// order, so that the same leak gets the same fingerprint whatever the addresses (a parent
  /// with three children is always described through `children[0]`); or its type.
  private static func describe(
    members: [Int], components: UnreachedComponents, previous: inout [Int32]
  ) -> (Fingerprint, String, cycle: RetainCycle?) {
    let graph = components.graph
    let firstType = members.map(graph.typeName(of:)).min() ?? ""
    let candidates = members.filter { graph.typeName(of: $0) == firstType }.prefix(32)
    var best: (cycle: RetainCycle, key: String)?
    for start in candidates {
      guard let cycle = shortestCycle(through: start, component: components.component, graph: graph, previous: &previous) else {
        continue
      }
      // Compared by types and labels only: never by where the objects happen to be.
      let key = cycle.addressIndependentDescription
      if let chosen = best, (chosen.cycle.elements.count, chosen.key) <= (cycle.elements.count, key) { continue }
      best = (cycle, key)
    }
    guard let best else {
      let type = graph.typeName(of: members[0])
      return (Fingerprint(parts: ["leak", type]), type, nil)
    }
    return (Fingerprint(parts: ["leak", best.cycle.fingerprint.description]), best.key, best.cycle)
  }

  /// The shortest cycle from `start` back to it inside its component (breadth-first).
  /// `previous` maps each node to its predecessor on the search, -1 outside it; the search
  /// leaves it as it found it.
  private static func shortestCycle(through start: Int, component: [Int32], graph: ObjectGraph, previous: inout [Int32]) -> RetainCycle? {
    var queue = [start]
    var head = 0
    var closing: Int?
    search: while head < queue.count {
      let node = queue[head]
      head += 1
      for edge in Int(graph.strongOffsets[node])..<Int(graph.strongOffsets[node + 1]) {
        let target = Int(graph.strongTargets[edge])
        guard component[target] == component[start] else { continue }
        if target == start {
          closing = node
          break search
        }
        if previous[target] < 0 {
          previous[target] = Int32(node)
          queue.append(target)
        }
      }
    }
    defer { for node in queue { previous[node] = -1 } }
    guard let closing else { return nil }
    var path = [closing]
    var node = closing
    while node != start {
      node = Int(previous[node])
      path.append(node)
    }
    return RetainCycle(graph: graph, path: path.reversed().map { Int32($0) })
  }
}
