/// What one snapshot holds, summed so that a series of snapshots can be compared without
/// keeping their graphs (``HeapGrowth``): objects and bytes per retaining path, per leak group
/// and per type, and which lines allocated them.
///
/// A path's bytes are what the objects on it hold along their shortest paths (their own sizes
/// and those of everything below them), so a growing `Cache.entries[*] -> Response` counts its
/// responses' bodies too.
///
/// ```swift
/// let tallies = snapshots.map { HeapTally(analysis: HeapAnalysis(graph: ObjectGraph($0))) }
/// let growth = HeapGrowth(tallies: tallies)
/// ```
public struct HeapTally: Sendable {
  /// A retaining path from a root, subscripts collapsed: `global Cache.shared: Cache.entries[*] -> Response`.
  public struct Path: Sendable, Hashable {
    /// The root: `global Cache.shared`, `thread 4242 stack`.
    public var origin: String
    /// From the root's object to the path's objects, each with the reference to the next.
    public var links: [HeapFinding.Link]

    /// `origin: A.b -> B`.
    public var description: String {
      "\(origin): " + links.map { $0.typeName + ($0.reference.map { "." + $0 } ?? "") }.joined(separator: " -> ")
    }
  }

  /// A line that allocated objects, and how many.
  public struct SiteCount: Sendable, Hashable {
    public var site: StackFrame
    public var count: Int
  }

  /// The objects of one path, one leak group or one type.
  struct Entry: Sendable {
    var count = 0
    var bytes = 0
    /// Allocation sites by ``siteKey(_:)``.
    var sites: [String: SiteCount] = [:]

    mutating func add(bytes: Int, site: StackFrame?) {
      count += 1
      self.bytes.addSaturating(bytes)
      if let site { sites[HeapTally.siteKey(site), default: SiteCount(site: site, count: 0)].count += 1 }
    }
  }

  /// A path's objects, the path itself and the key of the path that holds it.
  struct PathEntry: Sendable {
    var entry = Entry()
    /// The objects' own sizes (``Entry/bytes`` holds what they hold as well).
    var ownBytes = 0
    var path: Path
    var parentKey: UInt64?
  }

  /// A leak group's instances and what they retain.
  struct LeakEntry: Sendable {
    var entry = Entry()
    var summary: String
    var links: [HeapFinding.Link]
    /// The leaked objects the instances keep alive, by type (their entries and closure values
    /// left out): what a leaked closure captured, what a leaked task's closure and frames hold.
    var held: [String: Int] = [:]
  }

  /// Objects and bytes per path key.
  let paths: [UInt64: PathEntry]
  /// Instances and retained bytes per leak group.
  let leaks: [Fingerprint: LeakEntry]
  /// Objects and their own bytes per type.
  let types: [String: Entry]
  /// Objects in the snapshot (closure values left out).
  public let objectCount: Int
  /// Their bytes, as far as the snapshot records sizes.
  public let byteCount: Int
  /// The process's memory when the snapshot was taken, when it says.
  public let metadata: HeapSnapshot.Metadata

  /// Sums `analysis`; allocation sites are the package's own lines where a stack has one
  /// (`ownCode`), otherwise the usual allocation site.
  public init(analysis: HeapAnalysis) {
    let graph = analysis.graph
    let tree = analysis.shortestPaths
    let retaining = RetainingPaths(graph, shortestPaths: tree)
    var sites = AllocationSites(graph: graph, ownCode: analysis.options.ownCode)
    func site(of node: Int) -> StackFrame? { sites.site(of: node) }
    // What each reachable object holds along the shortest-path tree.
    var held = graph.nodes.map { Int64(graph.size(of: $0) ?? 0) }
    for node in tree.order.reversed() {
      let parent = tree.parent[Int(node)]
      if parent >= 0 { held[Int(parent)].addSaturating(held[Int(node)]) }
    }
    var paths: [UInt64: PathEntry] = [:]
    var types: [String: Entry] = [:]
    var objects = 0
    var bytes = 0
    for node in graph.nodes {
      // A closure value (a closure whose context is the one object it captures) is no
      // allocation, but it is an element of a path: a handler appended per request.
      if !graph.isClosureValue(node) {
        objects += 1
        bytes.addSaturating(graph.size(of: node) ?? 0)
        types[graph.typeName(of: node), default: Entry()].add(bytes: graph.size(of: node) ?? 0, site: nil)
      }
      guard tree.isReached(node) else { continue }
      let key = retaining.keys[node]
      if paths[key] == nil {
        paths[key] = PathEntry(
          path: Self.path(to: retaining.example[key] ?? node, graph: graph, tree: tree), parentKey: retaining.parentKey(of: node))
      }
      paths[key]!.entry.add(bytes: Int(clamping: held[node]), site: site(of: node))
      paths[key]!.ownBytes.addSaturating(graph.size(of: node) ?? 0)
    }
    var leaks: [Fingerprint: LeakEntry] = [:]
    for group in analysis.leaks.leakGroups {
      var entry = LeakEntry(
        summary: group.summary,
        links: group.entryCycleElements.isEmpty
          // A leaked task in no cycle: the task, then where it waits.
          ? group.entryObjectIDs.first.flatMap(graph.node(forObjectID:)).flatMap { WaitingTask.leakLinks(ofTask: $0, in: graph) }
            ?? [HeapFinding.Link(typeName: group.entryTypeName, reference: nil)]
          : group.entryCycleElements.map { HeapFinding.Link(typeName: $0.typeName, reference: $0.reference) })
      for id in group.entryObjectIDs {
        entry.entry.add(bytes: 0, site: graph.node(forObjectID: id).flatMap(site(of:)))
      }
      entry.entry.bytes = group.retainedSize
      entry.held = LeakedObjectTypes.counts(
        keptAliveBy: group.entryObjectIDs.compactMap(graph.node(forObjectID:)), graph: graph, tree: tree)
      leaks[group.fingerprint] = entry
    }
    self.paths = paths
    self.leaks = leaks
    self.types = types
    objectCount = objects
    byteCount = bytes
    metadata = graph.metadata
  }

  /// The path of `node` from its root, subscripts collapsed.
  private static func path(to node: Int, graph: ObjectGraph, tree: ShortestPathTree) -> Path {
    let chain = tree.path(to: node) ?? [node]
    let root = graph.roots.first { $0.node == chain[0] }
    let links = chain.indices.map { index in
      HeapFinding.Link(
        typeName: graph.typeName(of: chain[index]),
        reference: index + 1 < chain.count
          ? graph.label(ofEdge: tree.parentEdge(of: chain[index + 1])).map(RetainingPaths.collapsingSubscripts) : nil)
    }
    return Path(origin: RetainingPaths.origin(root), links: links)
  }

  /// A site's identity across processes: its file, line and function (not its address).
  static func siteKey(_ site: StackFrame) -> String {
    "\(site.file ?? ""):\(site.line ?? 0) \(site.symbol ?? "")"
  }
}
