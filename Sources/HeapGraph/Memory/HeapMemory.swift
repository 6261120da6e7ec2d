/// What holds the memory of one heap, beside what leaked: the paths that retain the most
/// (from the dominator tree, grouped by retaining path as ``HeapGrowth`` groups them), a
/// histogram of types with their retained sizes, and leak suspects as Eclipse MAT finds them.
///
/// - A **retainer** is a retaining path from a root, subscripts collapsed
///   (`global Cache.shared: Cache.entries[*] -> Response`), with the objects on it and what they
///   retain: the bytes that would be freed if they were (an object retained by another object on
///   the same path counts once, in that one). The list starts at the paths of the roots' objects
///   and goes down a path while the paths below it hold most (``passThroughShare``) of its bytes,
///   so that memory is named where it accumulates: a cache's path is left for the path of its
///   entries when they hold most of it.
/// - A **type**'s retained bytes are what its instances retain, an instance held by another of
///   the same type counted in that one.
/// - A **suspect** is one object that retains at least ``suspectShare`` of the heap, with the
///   path inside it where that memory accumulates, or a collection's path whose many objects of
///   one type (``manyObjects``) do; in both cases at least ``suspectMinimumBytes``.
///
/// ```swift
/// let memory = HeapMemory(analysis: analysis)
/// print(memory.reportText(names: analysis.nameStyle).description)
/// ```
/// ```text
/// What holds the memory: 1,006 objects, 227.2 KiB (304 bytes of it leaked, above)
/// Leak suspects:
///   1) global Cache.shared: Cache retains 99% of the heap (225.5 KiB)
///      most of it in Cache.entries[*] -> Response: 1,000 objects, 225.4 KiB
/// Top retainers:
///   1) global Cache.shared: Cache.entries[*] -> Response  (1,000 objects, 225.4 KiB retained, 99%)
///      allocated at Cache.fill() (Cache.swift:12): 1,000 objects
/// ```
public struct HeapMemory: Sendable {
  /// A retaining path and what its objects retain.
  public struct Retainer: Sendable, Hashable {
    /// From the root to the path's objects.
    public var path: HeapTally.Path
    /// The objects on the path.
    public var objectCount: Int
    /// What they retain, in bytes.
    public var retainedBytes: Int
    /// How many objects they retain, themselves included.
    public var retainedObjects: Int
    /// The lines that allocated the path's objects, most objects first (at most three).
    public var sites: [HeapTally.SiteCount]
  }

  /// One type's instances.
  public struct TypeRow: Sendable, Hashable {
    public var typeName: String
    public var objectCount: Int
    /// The instances' own sizes.
    public var shallowBytes: Int
    /// What the instances retain.
    public var retainedBytes: Int
  }

  /// A leak suspect: something that holds a large share of the heap.
  public struct Suspect: Sendable, Hashable {
    public enum Kind: String, Sendable {
      /// One object retains a large share.
      case object
      /// Many objects of one type on one path through a collection retain a large share.
      case collection
    }

    public var kind: Kind
    /// The path to the object, or to the collection's objects.
    public var path: HeapTally.Path
    /// 1 for an object; the collection's objects otherwise.
    public var objectCount: Int
    public var retainedBytes: Int
    /// For an object: the path below it where most of what it retains is, and how much (`nil`
    /// when it holds nothing that stands out).
    public var accumulation: Retainer?
  }

  /// The share of the heap that makes an object a suspect (MAT's default).
  public static let suspectShare = 0.1
  /// The least a suspect retains: in a small heap nothing is suspect.
  public static let suspectMinimumBytes = 64 * 1024
  /// The share of a path's bytes that the paths below it must hold for the list of retainers
  /// to name them instead.
  public static let passThroughShare = 0.8
  /// How many objects of one type on one path make a collection a suspect.
  public static let manyObjects = 100

  /// Objects in the heap (closure values left out) and their bytes, leaked ones included.
  public let objectCount: Int
  public let byteCount: Int
  /// The bytes of objects no root reaches (reported as leaks).
  public let leakedBytes: Int
  /// Retaining paths, most retained bytes first: at most ``maximumRetainers``.
  public let retainers: [Retainer]
  /// The paths listed as retainers beyond ``maximumRetainers``, which retain the least and are
  /// left out (a heap of random references has a path for nearly every few objects).
  public let omittedRetainerCount: Int
  /// The most retainers kept: ten thousand paths, each with its links, cost a few megabytes
  /// where all of those of a ten-million-object heap cost a hundred.
  public static let maximumRetainers = 10_000
  /// Every type, most retained bytes first (then own bytes, then name).
  public let types: [TypeRow]
  /// Leak suspects, most retained bytes first.
  public let suspects: [Suspect]

  /// `bytes` as a share of the heap, from 0 to 1.
  public func share(_ bytes: Int) -> Double { byteCount > 0 ? Double(bytes) / Double(byteCount) : 0 }

  /// Sums what `analysis` found: its dominator tree and its shortest paths.
  ///
  /// - Complexity: O(*n*), plus hashing each object's path once.
  public init(analysis: HeapAnalysis) {
    let graph = analysis.graph
    let tree = analysis.shortestPaths
    let dominators = analysis.leaks.dominators
    var objects = 0
    var bytes = 0
    var leaked = 0
    for node in graph.nodes where !graph.isClosureValue(node) {
      objects += 1
      let size = graph.size(of: node) ?? 0
      bytes.addSaturating(size)
      if analysis.leaks.hasRoots && !tree.isReached(node) { leaked.addSaturating(size) }
    }
    objectCount = objects
    byteCount = bytes
    leakedBytes = leaked

    let groups = analysis.pathGroups ?? PathGroups(graph: graph, tree: tree)
    let walk = DominatorWalk(
      graph: graph, dominators: dominators, groups: groups,
      suspectBytes: max(Int(Double(bytes) * Self.suspectShare), Self.suspectMinimumBytes))
    types = graph.typeNames.indices.compactMap { rank in
      walk.typeObjects[rank] == 0
        ? nil
        : TypeRow(
          typeName: graph.typeNames[rank], objectCount: walk.typeObjects[rank], shallowBytes: walk.typeShallowBytes[rank],
          retainedBytes: walk.typeRetainedBytes[rank])
    }.sorted { ($0.retainedBytes, $0.shallowBytes, $1.typeName) > ($1.retainedBytes, $1.shallowBytes, $0.typeName) }

    let allListed = groups.listed(retainedBytes: walk.groupRetainedBytes, passThroughShare: Self.passThroughShare)
      .sorted {
        (walk.groupRetainedBytes[Int($0)], groups.objectCount[Int($0)]) > (walk.groupRetainedBytes[Int($1)], groups.objectCount[Int($1)])
      }
    let listed = allListed.prefix(Self.maximumRetainers)
    omittedRetainerCount = allListed.count - listed.count
    var sites = AllocationSites(graph: graph, ownCode: analysis.options.ownCode)
    var siteCounts: [Int32: [String: HeapTally.SiteCount]] = [:]
    for group in listed { siteCounts[group] = [:] }
    for node in graph.nodes where !graph.isClosureValue(node) {
      let group = groups.groupOfNode[node]
      guard group >= 0, siteCounts[group] != nil, let site = sites.site(of: node) else { continue }
      siteCounts[group]![HeapTally.siteKey(site), default: HeapTally.SiteCount(site: site, count: 0)].count += 1
    }
    var paths = PathGroups.Paths(graph: graph)
    func path(of node: Int) -> HeapTally.Path { paths.path(of: groups.groupOfNode[node], in: groups, graph: graph, tree: tree) }
    func retainer(_ group: Int32) -> Retainer {
      Retainer(
        path: path(of: groups.example[Int(group)]), objectCount: groups.objectCount[Int(group)],
        retainedBytes: walk.groupRetainedBytes[Int(group)], retainedObjects: walk.groupRetainedObjects[Int(group)],
        sites: (siteCounts[group] ?? [:]).values.sorted { ($0.count, $1.site.description) > ($1.count, $0.site.description) }
          .prefix(3).map { $0 })
    }
    retainers = listed.map(retainer)

    var found: [Suspect] = walk.suspectNodes.map { node in
      Suspect(
        kind: .object, path: path(of: node), objectCount: 1,
        retainedBytes: Int(clamping: dominators.retainedSize[node]),
        accumulation: walk.accumulation(below: node).map { point in
          Retainer(
            path: path(of: point.example), objectCount: point.objects, retainedBytes: point.bytes,
            retainedObjects: point.retainedObjects, sites: [])
        })
    }
    let accumulated = Set(found.compactMap { $0.accumulation?.path })
    for retainer in retainers
    where retainer.objectCount >= Self.manyObjects && Double(retainer.retainedBytes) >= Self.suspectShare * Double(bytes)
      && retainer.retainedBytes >= Self.suspectMinimumBytes
      && retainer.path.isThroughCollection && !accumulated.contains(retainer.path)
    {
      found.append(
        Suspect(kind: .collection, path: retainer.path, objectCount: retainer.objectCount, retainedBytes: retainer.retainedBytes))
    }
    suspects = found.sorted { $0.retainedBytes > $1.retainedBytes }
  }
}

extension HeapTally.Path {
  /// Whether the path's last reference is a collection's element (`entries[*]`).
  var isThroughCollection: Bool {
    links.count >= 2 && links[links.count - 2].reference?.hasSuffix("[*]") == true
  }
}
