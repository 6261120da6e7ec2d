/// How the reports for people (text, HTML, Markdown) list an analysis's retain cycles: what a
/// developer acts on first. The one place that decides the order of the cycle components, the
/// leak group that holds each leaked one, and which are folded into one counted line.
///
/// When the snapshot has roots, the components of leaked objects come first, in the order of
/// their leak groups (the groups themselves are listed before every cycle), each pointing to
/// its group; then those a root still reaches: the package's own first, then its dependencies'.
/// The reachable components of dependencies' types (a framework's open connections, its caches)
/// are folded into one line, counted by shape, unless all cycles are asked for, or unless no
/// frame of the snapshot is the package's own (without stacks, every cycle could be the
/// user's). Without roots nothing can be called leaked or reachable: every component is listed,
/// the package's own first.
///
/// A component is the package's own when the package's code made an object of one of its listed
/// cycles (``OwnCode/made(_:)``: its line, or a dependency's initializer it called), or its
/// type is declared in a module of the package (``OwnCode/modules(in:)`` of the snapshot's stacks).
///
/// ```text
/// 3 more components of dependencies' types still reachable (open connections, caches; 27 cycles):
///   2 × ChannelHandlerContext.next → ChannelHandlerContext.prev → ChannelHandlerContext,
///   1 × Timer.handler → closure in Timer.start() → Timer; --all-cycles lists them
/// ```
package struct CycleListing: Sendable {
  /// Where a listed component stands.
  package enum Place: Sendable, Hashable {
    /// No root reaches it: it is part of the leak group at this index of
    /// ``LeakAnalysis/leakGroups`` (`nil` when no group's entry reaches it).
    case leaked(group: Int?)
    /// A root reaches it.
    case reachable
    /// The snapshot has no roots, so it cannot be told.
    case unknown

    /// What a component's heading says of its place (`still reachable`); `nil` without roots.
    package var remark: String? {
      switch self {
      case .leaked(let group?): "leaked: leak group \(group + 1) above"
      case .leaked(nil): "leaked"
      case .reachable: "still reachable"
      case .unknown: nil
      }
    }
  }

  /// A shape of the folded components: the fingerprint of their first cycle, and how many have it.
  package struct FoldedShape: Sendable {
    /// The first listed cycle of the first component of this shape.
    package var cycle: RetainCycle
    /// How many folded components have this shape.
    package var componentCount: Int
    /// How many cycles they have (found, listed or not).
    package var cycleCount: Int
  }

  /// The components to list (indices into ``CycleReport/components``), in order, with their place
  /// and whether they are the package's own.
  package private(set) var listed: [(component: Int, place: Place, isOwn: Bool)] = []
  /// The folded components' shapes, most components first.
  package private(set) var foldedShapes: [FoldedShape] = []
  /// How many cycles the folded components have (found, listed or not).
  package var foldedCycleCount: Int { foldedShapes.reduce(0) { $0 + $1.cycleCount } }

  /// The modules of the package's own code (``OwnCode/modules(in:)`` of the snapshot's stacks).
  package private(set) var ownModules: Set<String> = []

  /// How many components are folded.
  package var foldedComponentCount: Int { foldedShapes.reduce(0) { $0 + $1.componentCount } }

  /// The listing of `analysis`'s cycle components (those with a cycle, or cut short);
  /// `allCycles` lists the reachable components of dependencies' types too.
  ///
  /// - Complexity: O(*n* + *e*) over the leaked objects, plus the snapshot's stack frames once.
  package init(analysis: HeapAnalysis, allCycles: Bool) {
    let report = analysis.cycles
    let graph = analysis.graph
    let ownCode = analysis.options.ownCode
    let components = report.listedComponents
    let stacks = graph.stacks.lazy.map(\.frames)
    let ownModules = ownCode.modules(in: stacks)
    self.ownModules = ownModules
    func isOwn(_ component: Int) -> Bool {
      report.components[component].cycles.contains { cycle in
        cycle.elements.contains { element in
          ReadableName.module(of: element.typeName).map(ownModules.contains) == true
            || ownCode.made(element.allocationSite)
        }
      }
    }
    var own: [Int] = []
    var others: [Int] = []
    for component in components {
      if isOwn(component) { own.append(component) } else { others.append(component) }
    }
    guard analysis.leaks.hasRoots else {
      listed = own.map { ($0, .unknown, true) } + others.map { ($0, .unknown, false) }
      return
    }
    let groupOfNode = Self.leakGroupOfNode(analysis: analysis)
    var groupOfEntry: [Int64: Int] = [:]
    for (index, group) in analysis.leaks.leakGroups.enumerated() {
      for id in group.entryObjectIDs where groupOfEntry[id] == nil { groupOfEntry[id] = index }
    }
    // A component with a group's entry in one of its cycles is that group's; any other, the
    // first group that reaches it.
    let leaked: [(component: Int, group: Int?)] = components.compactMap { index in
      let component = report.components[index]
      guard let node = graph.node(forObjectID: component.smallestObjectID), !analysis.shortestPaths.isReached(node) else { return nil }
      let entryGroup = component.cycles.lazy.flatMap(\.elements).compactMap { groupOfEntry[$0.objectID] }.min()
      return (index, entryGroup ?? (groupOfNode[node] < 0 ? nil : Int(groupOfNode[node])))
    }.sorted { ($0.group ?? .max, $0.component) < ($1.group ?? .max, $1.component) }
    let isLeaked = Set(leaked.map(\.component))
    let reachableOwn = own.filter { !isLeaked.contains($0) }
    let reachableOthers = others.filter { !isLeaked.contains($0) }
    let ownSet = Set(own)
    listed =
      leaked.map { ($0.component, .leaked(group: $0.group), ownSet.contains($0.component)) } + reachableOwn.map { ($0, .reachable, true) }
    // Without any frame of the package, nothing tells its cycles from its dependencies'.
    let knowsOwnCode = graph.stacks.contains { ownCode.firstOwnFrame(in: $0.frames) != nil }
    guard !allCycles, knowsOwnCode else {
      listed += reachableOthers.map { ($0, .reachable, false) }
      return
    }
    var shapes: [Fingerprint: FoldedShape] = [:]
    for index in reachableOthers {
      let component = report.components[index]
      guard let first = component.cycles.first else { continue }
      shapes[first.fingerprint, default: FoldedShape(cycle: first, componentCount: 0, cycleCount: 0)].componentCount += 1
      shapes[first.fingerprint]!.cycleCount += component.foundCycleCount
    }
    // Components cut short before their first cycle are listed: they have no shape to fold into.
    listed += reachableOthers.filter { report.components[$0].cycles.isEmpty }.map { ($0, .reachable, false) }
    foldedShapes = shapes.values.sorted {
      ($1.componentCount, $0.cycle.addressIndependentDescription) < ($0.componentCount, $1.cycle.addressIndependentDescription)
    }
  }

  /// This listing with only the folded shapes whose first cycle's fingerprint is `isFolded`: a
  /// Markdown table has one row per fingerprint, so a shape that a listed component has too is
  /// in the table already.
  package func foldingOnly(where isFolded: (Fingerprint) -> Bool) -> CycleListing {
    var listing = self
    listing.foldedShapes.removeAll { !isFolded($0.cycle.fingerprint) }
    return listing
  }

  /// The index of the leak group that holds each node, -1 for none: the first group, in the
  /// order of ``LeakAnalysis/leakGroups``, whose entries reach it through strong references
  /// among the leaked objects. It depends only on the groups' entries and order, not on how they
  /// were chosen.
  private static func leakGroupOfNode(analysis: HeapAnalysis) -> [Int32] {
    let graph = analysis.graph
    var group = [Int32](repeating: -1, count: graph.objectCount)
    for (index, leakGroup) in analysis.leaks.leakGroups.enumerated() {
      var queue = leakGroup.entryObjectIDs.compactMap { graph.node(forObjectID: $0) }.filter { group[$0] < 0 }
      for node in queue { group[node] = Int32(index) }
      var next = 0
      while next < queue.count {
        let node = queue[next]
        next += 1
        for edge in Int(graph.strongOffsets[node])..<Int(graph.strongOffsets[node + 1]) {
          let target = Int(graph.strongTargets[edge])
          guard group[target] < 0, !analysis.shortestPaths.isReached(target) else { continue }
          group[target] = Int32(index)
          queue.append(target)
        }
      }
    }
    return group
  }

  /// The line that stands for the folded components, `nil` when none is: how many, of how many
  /// cycles, each shape with its count (at most `shapeLimit`), and the setting that lists them.
  ///
  /// ```text
  /// 18 more components of dependencies' types still reachable (open connections, caches; 170 cycles): 17 × ChannelHandlerContext.next → ChannelHandlerContext.prev → ChannelHandlerContext, 1 × …; --all-cycles lists them
  /// ```
  package func foldedLine(names: NameStyle, settingNames: ReportSettingNames, shapeLimit: Int = 5) -> String? {
    let components = foldedComponentCount
    guard components > 0 else { return nil }
    var shapes = foldedShapes.prefix(shapeLimit).map {
      "\(grouped($0.componentCount)) × \(names.shortForm(of: $0.cycle) ?? names.cycle($0.cycle))"
    }
    if foldedShapes.count > shapeLimit { shapes.append("\(count(foldedShapes.count - shapeLimit, "more shape"))") }
    return "\(grouped(components))\(listed.isEmpty ? "" : " more") component\(components == 1 ? "" : "s") of dependencies' types "
      + "still reachable (open connections, caches; \(count(foldedCycleCount, "cycle"))): \(shapes.joined(separator: ", ")); "
      + "\(settingNames.allCycles) lists them"
  }
}
