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
  ///
  /// The entry object of a cycle is the one the checked package's code made (``OwnCode``): of
  /// the cycle's objects, the one whose allocation stack reaches the package's own code in the
  /// fewest frames (a test channel the package's helper made, rather than the pipeline the
  /// channel's initializer made), then one of the package's own types, a class instance before
  /// a closure, and the smallest type name. The group's cycle is the shortest through an entry
  /// object of that type, read from it; references are followed in the order of their labels,
  /// so neither ids nor addresses decide which cycle or which group an instance is in.
  public struct LeakGroup: Sendable, Hashable {
    /// The entry's type, and the types and labels of the cycle through it: independent of
    /// addresses and order. A group whose entry is its cycle's first type in the order of
    /// ``RetainCycle/addressIndependentElements`` has the cycle's fingerprint alone.
    public var fingerprint: Fingerprint
    /// The entry's cycle, from the entry (`A.b -> B.a -> A`), or its type name.
    public var summary: String
    /// The entry object's type.
    public var entryTypeName: String
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
    /// Whether the package's own code made the entry (``OwnCode/made(_:)``), or its type is of one
    /// of the package's modules: such groups come first.
    public var isOwn: Bool

    /// The entry cycle's objects from the entry, in the rotation of ``summary``; empty when the
    /// entry is in no cycle.
    public var entryCycleElements: [RetainCycle.Element] {
      entryCycle.map { $0.addressIndependentElements(startingWithType: entryTypeName) } ?? []
    }
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
    cyclicComponents: [[Int32]]? = nil, frameworkTypes: Suppressions? = nil, ownCode: OwnCode = OwnCode(packageDirectory: nil)
  ) {
    hasRoots = !graph.roots.isEmpty || rootsAreComplete
    let unreached = hasRoots ? graph.nodes.filter { !tree.isReached($0) } : []
    leakedObjectCount = unreached.count { !graph.isClosureValue($0) }
    let components = UnreachedComponents(
      graph: graph, unreached: unreached,
      // A component is unreached whole or not at all.
      cycles: !hasRoots ? [] : cyclicComponents?.filter { !tree.isReached(Int($0[0])) }
        ?? StronglyConnectedComponents(graph: graph, startNodes: unreached).components)
    // One node of each entry component, then the component's entry object.
    var representatives = components.entries()
    if let frameworkTypes { representatives += components.cyclesHeldOnlyByFramework(isFramework: frameworkTypes.suppresses(type:)) }
    let choice = EntryChoice(graph: graph, ownCode: ownCode)
    let candidates = representatives.map { choice.candidates(among: components.members(ofComponentOf: $0)) }
    let entries = candidates.map { $0[0] }
    // The dominator tree on another core while this one describes the entries.
    let dominatorWork = ConcurrentResult { [entries] in DominatorTree(graph: graph, entries: graph.roots.map(\.node) + entries) }
    let descriptions = Self.describe(candidates: candidates, of: components)
    let dominators = dominatorWork.value
    leakGroups = Self.leakGroups(
      entries: entries, descriptions: descriptions, isOwn: entries.map(choice.isOwn), graph: graph, dominators: dominators)
    survivors = expectedDead.map { Self.survivors(expectedDead: $0, graph: graph, tree: tree, dominators: dominators) } ?? []
  }

  /// The groups of `entries` (described by `descriptions`), identical ones (same fingerprint)
  /// merged: the package's own first (`isOwn`), then largest retained size first.
  private static func leakGroups(
    entries: [Int], descriptions: [EntryDescription], isOwn: [Bool], graph: ObjectGraph, dominators: DominatorTree
  ) -> [LeakGroup] {
    var groups: [Fingerprint: LeakGroup] = [:]
    for ((entry, description), isOwn) in zip(zip(entries, descriptions), isOwn) {
      var group = groups[description.fingerprint] ?? LeakGroup(
        fingerprint: description.fingerprint, summary: description.summary, entryTypeName: description.entryTypeName,
        instanceCount: 0, objectCount: 0, retainedSize: 0, entryObjectIDs: [], entryCycle: description.cycle, isOwn: false)
      // The instance shown is the one whose sites come first, not the first by id: tests
      // that run in parallel allocate in any order.
      if let shown = group.entryCycle, let cycle = description.cycle, Self.siteKey(cycle) < Self.siteKey(shown) {
        group.entryCycle = cycle
      }
      group.instanceCount += 1
      group.objectCount += Int(dominators.retainedCount[entry])
      group.retainedSize.addSaturating(Int(dominators.retainedSize[entry]))
      group.entryObjectIDs.append(graph.objectID(of: entry))
      group.isOwn = group.isOwn || isOwn
      groups[description.fingerprint] = group
    }
    return groups.values.sorted {
      ($0.isOwn ? 1 : 0, $0.retainedSize, $0.objectCount, $1.fingerprint) > ($1.isOwn ? 1 : 0, $1.retainedSize, $1.objectCount, $0.fingerprint)
    }
  }

  /// The allocation sites of `cycle`'s objects (files, then lines in numeric order), to choose
  /// the instance a group shows the same way in every run.
  private static func siteKey(_ cycle: RetainCycle) -> String {
    cycle.addressIndependentElements.map { element in
      element.allocationSite.allocationSite.map { site in
        let line = String(site.line ?? 0)
        return "\(site.file ?? ""):\(String(repeating: "0", count: max(0, 10 - line.count)))\(line) \(site.symbol ?? "")"
      } ?? ""
    }.joined(separator: "\n")
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

  /// What names a leak group: its fingerprint, its summary, its entry's type, and the cycle
  /// through the entry.
  struct EntryDescription {
    var fingerprint: Fingerprint
    var summary: String
    var entryTypeName: String
    var cycle: RetainCycle?
  }

  /// The description of each entry component, from its entry objects (`candidates`, as
  /// ``EntryChoice`` chose them), in the order of `candidates`.
  private static func describe(candidates: [[Int]], of components: UnreachedComponents) -> [EntryDescription] {
    var previous = [Int32](repeating: -1, count: components.graph.objectCount)
    return candidates.map { describe(candidates: $0, components: components, previous: &previous) }
  }

  /// The description of an entry component from its entry objects (`candidates`, all of one
  /// type): the smallest of the shortest cycles through them, by types and labels, so that
  /// the same leak gets the same fingerprint whatever the addresses and ids (a parent with three
  /// children is always described through `children[0]`); or the entry's type.
  private static func describe(candidates: [Int], components: UnreachedComponents, previous: inout [Int32]) -> EntryDescription {
    let graph = components.graph
    let entryType = graph.typeName(of: candidates[0])
    var best: (cycle: RetainCycle, key: String)?
    for start in candidates.prefix(32) {
      guard let cycle = shortestCycle(through: start, component: components.component, graph: graph, previous: &previous) else {
        continue
      }
      // Compared by types and labels only: never by where the objects happen to be.
      let key = RetainCycle.describe(cycle.addressIndependentElements(startingWithType: entryType))
      if let chosen = best, (chosen.cycle.elements.count, chosen.key) <= (cycle.elements.count, key) { continue }
      best = (cycle, key)
    }
    guard let best else {
      return EntryDescription(fingerprint: Fingerprint(parts: ["leak", entryType]), summary: entryType, entryTypeName: entryType)
    }
    // The cycle's own fingerprint when the entry is where the cycle reads from anyway.
    let readsFromEntry = best.cycle.addressIndependentElements[0].typeName == entryType
    return EntryDescription(
      fingerprint: Fingerprint(parts: ["leak", best.cycle.fingerprint.description] + (readsFromEntry ? [] : ["entry", entryType])),
      summary: best.key, entryTypeName: entryType, cycle: best.cycle)
  }

  /// The strong edges of `node` in the order of their labels, then their targets' types (the
  /// graph keeps them in the order of their targets' ids, which differ from run to run).
  private static func edgesInLabelOrder(of node: Int, graph: ObjectGraph) -> [Int] {
    let edges = Int(graph.strongOffsets[node])..<Int(graph.strongOffsets[node + 1])
    guard edges.count > 1 else { return Array(edges) }
    // Labels and type names are ranked in sorted order: ranks compare as the names do.
    let keyed = edges.map { edge in (graph.strongLabels[edge], graph.typeRanks[Int(graph.strongTargets[edge])], edge) }
    return keyed.sorted { ($0.0, $0.1, $0.2) < ($1.0, $1.1, $1.2) }.map(\.2)
  }

  /// The shortest cycle from `start` back to it inside its component (breadth-first, references
  /// in the order of their labels).
  /// `previous` maps each node to its predecessor on the search, -1 outside it; the search
  /// leaves it as it found it.
  private static func shortestCycle(through start: Int, component: [Int32], graph: ObjectGraph, previous: inout [Int32]) -> RetainCycle? {
    var queue = [start]
    var head = 0
    var closing: Int?
    search: while head < queue.count {
      let node = queue[head]
      head += 1
      for edge in edgesInLabelOrder(of: node, graph: graph) {
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
