/// The reachable objects grouped by retaining path (``RetainingPaths``' keys, numbered densely),
/// with each path's parent path: the tree of paths that ``HeapMemory`` lists retainers from.
///
/// ```swift
/// let groups = PathGroups(graph: graph, tree: analysis.shortestPaths)
/// groups.groupOfNode[node]  // 3: the objects of `global Cache.shared: Cache.entries[*] -> Response`
/// ```
struct PathGroups {
  /// The group of each node; -1 for a node no root reaches.
  let groupOfNode: [Int32]
  /// One object of each group.
  let example: [Int]
  /// The objects of each group (closure values left out).
  let objectCount: [Int]
  /// The group of the objects that hold each group's objects on their paths; -1 for a root's.
  let parent: [Int32]

  var count: Int { example.count }

  /// - Complexity: O(*n*), plus hashing each object's path once.
  init(graph: ObjectGraph, tree: ShortestPathTree) {
    // A node's path key from its holder's group's: no key per node is kept.
    let hashing = RetainingPaths.KeyHashing(graph)
    var groupOfKey: [UInt64: Int32] = [:]
    var keyOfGroup: [UInt64] = []
    var groupOfNode = [Int32](repeating: -1, count: graph.objectCount)
    var example: [Int] = []
    var objectCount: [Int] = []
    var parent: [Int32] = []
    // Breadth-first: a path's parent path has its number before it.
    for node in tree.order.lazy.map(Int.init) {
      let holder = tree.parent[node]
      let holderGroup = holder >= 0 ? groupOfNode[Int(holder)] : -1
      let key = hashing.key(of: node, parentKey: holder >= 0 ? keyOfGroup[Int(holderGroup)] : nil, tree: tree)
      let group: Int32
      if let known = groupOfKey[key] {
        group = known
      } else {
        group = Int32(example.count)
        groupOfKey[key] = group
        keyOfGroup.append(key)
        example.append(node)
        objectCount.append(0)
        parent.append(holderGroup)
      }
      groupOfNode[node] = group
      if !graph.isClosureValue(node) { objectCount[Int(group)] += 1 }
    }
    self.groupOfNode = groupOfNode
    self.example = example
    self.objectCount = objectCount
    self.parent = parent
  }

  /// The groups to list as retainers: from the roots' paths down, a path whose child paths
  /// retain at least `passThroughShare` of its bytes is passed through to them, and the others,
  /// those that retain anything, are listed. A path reached through paths of as many objects
  /// that retain most of it (each response's body below the responses) is listed as the first of
  /// those: the objects whose fields hold the memory, where they accumulate.
  func listed(retainedBytes: [Int], passThroughShare: Double) -> [Int32] {
    var children = [[Int32]](repeating: [], count: count)
    // Each pending group with the first group of its run of paths of as many objects.
    var pending: [(group: Int32, first: Int32)] = []
    for group in 0..<count {
      if parent[group] >= 0 {
        children[Int(parent[group])].append(Int32(group))
      } else {
        pending.append((Int32(group), Int32(group)))
      }
    }
    var listed: [Int32] = []
    var isListed = [Bool](repeating: false, count: count)
    while let (group, first) = pending.popLast() {
      let below = children[Int(group)].reduce(0) { $0 &+ retainedBytes[Int($1)] }
      if !children[Int(group)].isEmpty && Double(below) >= passThroughShare * Double(retainedBytes[Int(group)]) {
        pending += children[Int(group)].map { child in
          let bytes = Double(retainedBytes[Int(child)])
          let withinGroup =
            objectCount[Int(child)] == objectCount[Int(group)] && bytes <= Double(retainedBytes[Int(group)])
            && bytes >= passThroughShare * Double(retainedBytes[Int(group)])
          return (child, withinGroup ? first : child)
        }
      } else if retainedBytes[Int(group)] > 0 && !isListed[Int(first)] {
        isListed[Int(first)] = true
        listed.append(first)
      }
    }
    return listed
  }

  /// The path of each group, built from its parent's (each label collapsed once), for the
  /// groups asked for and those above them.
  struct Paths {
    private var known: [Int32: HeapTally.Path] = [:]
    /// The first root of each root's object, as a path names it.
    private let rootOfNode: [Int: ObjectGraph.Root]

    init(graph: ObjectGraph) {
      rootOfNode = Dictionary(graph.roots.map { ($0.node, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The path of `group`, from its root.
    mutating func path(of group: Int32, in groups: PathGroups, graph: ObjectGraph, tree: ShortestPathTree) -> HeapTally.Path {
      if let path = known[group] { return path }
      let example = groups.example[Int(group)]
      let link = HeapFinding.Link(typeName: graph.typeName(of: example), reference: nil)
      var path: HeapTally.Path
      if groups.parent[Int(group)] >= 0 {
        path = self.path(of: groups.parent[Int(group)], in: groups, graph: graph, tree: tree)
        path.links[path.links.count - 1].reference = graph.label(ofEdge: tree.parentEdge(of: example)).map(
          RetainingPaths.collapsingSubscripts)
        path.links.append(link)
      } else {
        path = HeapTally.Path(origin: RetainingPaths.origin(rootOfNode[example]), links: [link])
      }
      known[group] = path
      return path
    }
  }
}
