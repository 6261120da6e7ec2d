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
            reference: index + 1 < chain.count ? graph.label(ofEdge: tree.parentEdge(of: chain[index + 1])) : nil,
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
  /// The work the analysis did, in the leak phases of ``AnalysisWork`` (the others are 0).
  package let work: AnalysisWork
  /// The dominator tree from the roots and the leaks' entries: what each object retains.
  package let dominators: DominatorTree

  /// Analyses `graph`; survivors are looked for only if `expectedDead` is given.
  ///
  /// - Complexity: O(*n* + *e*) for reachability and grouping, plus the dominator tree.
  public init(graph: ObjectGraph, expectedDead: ExpectedDead? = nil, rootsAreComplete: Bool = false) {
    self.init(graph: graph, expectedDead: expectedDead, rootsAreComplete: rootsAreComplete, shortestPaths: ShortestPathTree(graph: graph))
  }

  /// The search of the dominator tree's nodes from the entries every analysis of `graph` has,
  /// which can begin before the others are known (see ``DominatorSearch``): the roots, and,
  /// where objects can leak, the objects that nothing holds (each unreached, alone in its
  /// component, and so that component's entry).
  static func beginDominatorSearch(graph: ObjectGraph, rootsAreComplete: Bool) -> DominatorSearch {
    let canLeak = canLeak(in: graph, rootsAreComplete: rootsAreComplete)
    return DominatorSearch(
      graph: graph, entries: graph.roots.map(\.node) + (canLeak ? UnreachedComponents.objectsNothingHolds(in: graph) : []))
  }

  /// Whether an object of `graph` can be called leaked: when the snapshot lists roots, or
  /// when its roots are all there are (``hasRoots``).
  private static func canLeak(in graph: ObjectGraph, rootsAreComplete: Bool) -> Bool {
    !graph.roots.isEmpty || rootsAreComplete
  }

  /// Analyses `graph` with its shortest paths from the roots already computed (`tree`), and
  /// its cyclic strongly connected components if they are (`cyclicComponents`, as
  /// ``StronglyConnectedComponents`` finds them for the whole graph). The dominator tree goes
  /// on from `dominatorSearch` if it is given (begun with ``beginDominatorSearch(graph:rootsAreComplete:)``).
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
    cyclicComponents: [[Int32]]? = nil, frameworkTypes: Suppressions? = nil, ownCode: OwnCode = OwnCode(packageDirectory: nil),
    dominatorSearch: ConcurrentResult<DominatorSearch>? = nil
  ) {
    var work = AnalysisWork()
    hasRoots = Self.canLeak(in: graph, rootsAreComplete: rootsAreComplete)
    let canLeak = hasRoots
    func isUnreached(_ node: Int) -> Bool { canLeak && !tree.isReached(node) }
    leakedObjectCount = graph.nodes.count { isUnreached($0) && !graph.isClosureValue($0) }
    let components = UnreachedComponents(
      graph: graph, isUnreached: isUnreached,
      // A component is unreached whole or not at all.
      cycles: !canLeak
        ? []
        : cyclicComponents?.filter { !tree.isReached(Int($0[0])) }
          ?? StronglyConnectedComponents(graph: graph, startNodes: graph.nodes.filter(isUnreached)).components)
    // One node of each entry component, then the component's entry object.
    var representatives = components.entries(steps: &work.leakEntries)
    if let frameworkTypes { representatives += components.cyclesHeldOnlyByFramework(isFramework: frameworkTypes.suppresses(type:)) }
    let choice = EntryChoice(graph: graph, ownCode: ownCode)
    let candidates = EntryCandidates(representatives: representatives, components: components, choice: choice)
    let entries = candidates.entries
    // The dominator tree on another core while this one describes the entries.
    let dominatorWork = ConcurrentResult { [entries] in
      let treeEntries = graph.roots.map(\.node) + entries
      guard let dominatorSearch else { return DominatorTree(graph: graph, entries: treeEntries) }
      return DominatorTree(graph: graph, search: dominatorSearch.value, entries: treeEntries)
    }
    let grouping = Self.groupEntries(candidates, of: components, steps: &work.entryDescriptions)
    let dominators = dominatorWork.value
    self.dominators = dominators
    work.dominators = dominators.steps
    leakGroups = Self.leakGroups(
      grouping, entries: entries, isOwn: choice.isOwn, graph: graph, dominators: dominators, steps: &work.leakGroups)
    survivors =
      expectedDead.map {
        Self.survivors(expectedDead: $0, graph: graph, tree: tree, dominators: dominators, steps: &work.survivors)
      } ?? []
    self.work = work
  }

  /// The leak groups before their sizes: each group with its description and no instances, and
  /// the group of each entry.
  private struct EntryGrouping {
    var groups: [LeakGroup] = []
    /// The index in ``groups`` of each entry's group.
    var groupOfEntry: [Int32] = []
  }

  /// The entries of `candidates` grouped by their descriptions (identical ones, with the same
  /// fingerprint, in one group), in the order in which each group's first entry comes; a group's
  /// cycle is the one whose allocation sites come first.
  private static func groupEntries(
    _ candidates: EntryCandidates, of components: UnreachedComponents, steps: inout Int
  ) -> EntryGrouping {
    let graph = components.graph
    var grouping = EntryGrouping()
    grouping.groupOfEntry.reserveCapacity(candidates.count)
    var groupIndex: [Fingerprint: Int32] = [:]
    // The site key of each group's shown cycle, computed once.
    var shownSiteKey: [String?] = []
    // An entry in no cycle is described by its type alone (a task by where it waits): one
    // description per type.
    var groupOfAcyclicType = [Int32](repeating: -1, count: graph.typeNames.count)
    // A task is described by where it waits, not by its type alone.
    let isDescribedByTypeOf = (0..<candidates.count).map { index in
      let first = Int(candidates.nodes(of: index).first!)
      return components.isAcyclic(first) && graph.kind(of: first) != .task
    }
    // The descriptions that take a search, first, on two cores.
    var searched = describeOnTwoCores(
      (0..<candidates.count).filter { !isDescribedByTypeOf[$0] }, candidates: candidates, components: components, steps: &steps
    ).makeIterator()
    for index in 0..<candidates.count {
      let typeRank = Int(graph.typeRanks[Int(candidates.nodes(of: index).first!)])
      let isDescribedByType = isDescribedByTypeOf[index]
      if isDescribedByType, groupOfAcyclicType[typeRank] >= 0 {
        steps += 1
        grouping.groupOfEntry.append(groupOfAcyclicType[typeRank])
        continue
      }
      let description =
        isDescribedByType
        ? describe(candidates: candidates.nodes(of: index), components: components, steps: &steps) : searched.next()!
      let group: Int32
      if let existing = groupIndex[description.fingerprint] {
        group = existing
        // The instance shown is the one whose sites come first, not the first by id: tests
        // that run in parallel allocate in any order.
        if let cycle = description.cycle, let shown = shownSiteKey[Int(group)] {
          let key = siteKey(cycle)
          if key < shown {
            grouping.groups[Int(group)].entryCycle = cycle
            shownSiteKey[Int(group)] = key
          }
        }
      } else {
        group = Int32(grouping.groups.count)
        groupIndex[description.fingerprint] = group
        grouping.groups.append(
          LeakGroup(
            fingerprint: description.fingerprint, summary: description.summary, entryTypeName: description.entryTypeName,
            instanceCount: 0, objectCount: 0, retainedSize: 0, entryObjectIDs: [], entryCycle: description.cycle, isOwn: false))
        shownSiteKey.append(description.cycle.map(siteKey))
      }
      if isDescribedByType { groupOfAcyclicType[typeRank] = group }
      grouping.groupOfEntry.append(group)
    }
    return grouping
  }

  /// The groups of `grouping`, with their instances (`entries`), sizes and whether they are the
  /// package's own (`isOwn` of an entry): the package's own first, then largest retained size
  /// first.
  private static func leakGroups(
    _ grouping: EntryGrouping, entries: [Int], isOwn: (Int) -> Bool, graph: ObjectGraph, dominators: DominatorTree,
    steps: inout Int
  ) -> [LeakGroup] {
    var groups = grouping.groups
    // Each group is changed in place: a copy taken out of a collection and put back would copy
    // its list of entries on every append, k² / 2 for a group of k instances.
    for (entry, group) in zip(entries, grouping.groupOfEntry) {
      steps += 1
      let index = Int(group)
      groups[index].instanceCount += 1
      groups[index].objectCount += Int(dominators.retainedCount[entry])
      groups[index].retainedSize.addSaturating(Int(dominators.retainedSize[entry]))
      groups[index].entryObjectIDs.append(graph.objectID(of: entry))
      if !groups[index].isOwn && isOwn(entry) { groups[index].isOwn = true }
    }
    return groups.sorted {
      ($0.isOwn ? 1 : 0, $0.retainedSize, $0.objectCount, $1.fingerprint) > (
        $1.isOwn ? 1 : 0, $1.retainedSize, $1.objectCount, $0.fingerprint
      )
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
  ///
  /// Whether another survivor holds an object is passed down the shortest-path tree once, parents
  /// before children, so that only the paths of the survivors reported are walked.
  private static func survivors(
    expectedDead: ExpectedDead, graph: ObjectGraph, tree: ShortestPathTree, dominators: DominatorTree, steps: inout Int
  ) -> [Survivor] {
    func isExpectedDead(_ node: Int) -> Bool {
      switch expectedDead {
      case .generation(let first): graph.generation(of: node).map { $0 >= first } ?? false
      case .objects(let ids): ids.contains(graph.objectID(of: node))
      }
    }
    var isDead = [Bool](repeating: false, count: graph.objectCount)
    for node in tree.order.lazy.map(Int.init) where isExpectedDead(node) { isDead[node] = true }
    // Whether an object expected dead is on the path above each node.
    var isHeldByDead = [Bool](repeating: false, count: graph.objectCount)
    for node in tree.order.lazy.map(Int.init) {
      let parent = Int(tree.parent[node])
      if parent >= 0 { isHeldByDead[node] = isDead[parent] || isHeldByDead[parent] }
    }
    steps += 2 * tree.order.count
    let rootByNode = Dictionary(graph.roots.map { ($0.node, $0) }, uniquingKeysWith: { first, _ in first })
    var survivors: [Survivor] = []
    for node in graph.nodes where isDead[node] && !isHeldByDead[node] {
      let chain = tree.path(to: node) ?? [node]
      steps += chain.count
      let pathSteps = Survivor.Step.steps(of: chain, in: graph, tree: tree)
      let root = rootByNode[chain[0]]
      let source = chain.count > 1 ? pathSteps[pathSteps.count - 2] : nil
      let suspect = source.map { "\($0.typeName).\($0.reference ?? "?")" } ?? "root \(root?.label ?? root?.kind.rawValue ?? "?")"
      survivors.append(
        Survivor(
          root: [root?.kind.rawValue, root?.label].compactMap { $0 }.joined(separator: " "), path: pathSteps, suspect: suspect,
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

  /// The descriptions of the entries at `indices` of `candidates`, in their order: every other
  /// one described on a thread of its own.
  private static func describeOnTwoCores(
    _ indices: [Int], candidates: EntryCandidates, components: UnreachedComponents, steps: inout Int
  ) -> [EntryDescription] {
    @Sendable func describeEveryOther(from first: Int, steps: inout Int) -> [EntryDescription] {
      stride(from: first, to: indices.count, by: 2).map {
        describe(candidates: candidates.nodes(of: indices[$0]), components: components, steps: &steps)
      }
    }
    let odd = ConcurrentResult {
      var steps = 0
      return (describeEveryOther(from: 1, steps: &steps), steps)
    }
    let even = describeEveryOther(from: 0, steps: &steps)
    let (odds, oddSteps) = odd.value
    steps += oddSteps
    return indices.indices.map { $0 % 2 == 0 ? even[$0 / 2] : odds[$0 / 2] }
  }

  /// The description of an entry component from its entry objects (`candidates`, all of one
  /// type): the smallest of the shortest cycles through them, by types and labels, so that
  /// the same leak gets the same fingerprint whatever the addresses and ids (a parent with three
  /// children is always described through `children[0]`); or the entry's type.
  private static func describe(
    candidates: ArraySlice<Int32>, components: UnreachedComponents, steps: inout Int
  ) -> EntryDescription {
    let graph = components.graph
    let entryType = graph.typeName(of: Int(candidates.first!))
    let members = components.sortedMembers(ofComponentOf: Int(candidates.first!))
    var previous = [Int32](repeating: -1, count: members.count)
    var best: (cycle: RetainCycle, key: String)?
    for start in candidates.prefix(32).lazy.map(Int.init) {
      guard
        let cycle = shortestCycle(
          through: start, members: members, component: components.component, graph: graph, previous: &previous, steps: &steps)
      else {
        continue
      }
      // Compared by types and labels only: never by where the objects happen to be.
      let key = RetainCycle.describe(cycle.addressIndependentElements(startingWithType: entryType))
      if let chosen = best, (chosen.cycle.elements.count, chosen.key) <= (cycle.elements.count, key) { continue }
      best = (cycle, key)
    }
    guard let best else {
      // A waiting task in no cycle (one that waits on a continuation nothing holds): by where it waits.
      if let summary = WaitingTask.leakSummary(ofTask: Int(candidates.first!), in: graph) {
        return EntryDescription(fingerprint: Fingerprint(parts: ["leak", summary]), summary: summary, entryTypeName: entryType)
      }
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

  /// The shortest cycle from `start` back to it inside its component, whose nodes are `members`
  /// in node order (breadth-first, references in the order of their labels).
  /// `previous` maps each member, by its position in `members`, to its predecessor on the
  /// search, -1 outside it; the search leaves it as it found it.
  private static func shortestCycle(
    through start: Int, members: [Int32], component: [Int32], graph: ObjectGraph, previous: inout [Int32], steps: inout Int
  ) -> RetainCycle? {
    func position(_ node: Int) -> Int {
      var low = 0
      var high = members.count
      while low < high {
        let middle = (low + high) / 2
        if Int(members[middle]) < node { low = middle + 1 } else { high = middle }
      }
      return low
    }
    var queue = [start]
    var head = 0
    var closing: Int?
    search: while head < queue.count {
      let node = queue[head]
      head += 1
      steps += Int(graph.strongOffsets[node + 1] - graph.strongOffsets[node]) + 1
      for edge in edgesInLabelOrder(of: node, graph: graph) {
        let target = Int(graph.strongTargets[edge])
        guard component[target] == component[start] else { continue }
        if target == start {
          closing = node
          break search
        }
        if previous[position(target)] < 0 {
          previous[position(target)] = Int32(node)
          queue.append(target)
        }
      }
    }
    defer { for node in queue { previous[position(node)] = -1 } }
    guard let closing else { return nil }
    var path = [closing]
    var node = closing
    while node != start {
      node = Int(previous[position(node)])
      path.append(node)
    }
    return RetainCycle(graph: graph, path: path.reversed().map { Int32($0) })
  }
}
