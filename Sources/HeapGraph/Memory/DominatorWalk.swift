/// One depth-first walk of the dominator tree that sums what ``HeapMemory`` reports: the bytes
/// each retaining path and each type retain (an object dominated by another of the same path, or
/// type, is counted in that one), and the top-most objects that retain a suspect's share.
///
/// ```swift
/// let walk = DominatorWalk(graph: graph, dominators: dominators, groups: groups, suspectBytes: total / 10)
/// walk.groupRetainedBytes[group]  // 231,000: the bytes 1,000 cached responses retain
/// ```
struct DominatorWalk {
  /// Per path group: retained bytes and objects.
  let groupRetainedBytes: [Int]
  let groupRetainedObjects: [Int]
  /// Per type rank: objects (closure values left out), their own bytes, and what they retain.
  let typeObjects: [Int]
  let typeShallowBytes: [Int]
  let typeRetainedBytes: [Int]
  /// Reached objects that retain at least the suspect share, none dominated by another.
  let suspectNodes: [Int]

  private let dominators: DominatorTree
  private let groups: PathGroups
  /// The dominator tree's children of each node, the virtual root's at `objectCount`, as
  /// compressed rows.
  private let childStart: [Int32]
  private let children: [Int32]

  /// Where inside an object the memory it retains accumulates.
  struct Accumulation {
    /// One of the objects there, their count, what they retain.
    var example: Int
    var objects: Int
    var bytes: Int
    var retainedObjects: Int
  }

  /// - Complexity: O(*n*).
  init(graph: ObjectGraph, dominators: DominatorTree, groups: PathGroups, suspectBytes: Int) {
    let count = graph.objectCount
    self.dominators = dominators
    self.groups = groups
    // Rows of children, one per node and one for the entries' (`count`): each row's count two
    // places on, summed so that a row's start is one place on, which then serves as the cursor
    // that fills the row and ends at the next row's start (no second array of cursors).
    func row(_ node: Int) -> Int? {
      let parent = dominators.immediateDominator[node]
      return parent == DominatorTree.unreached ? nil : parent == DominatorTree.heldByEntries ? count : Int(parent)
    }
    var childStart = [Int32](repeating: 0, count: count + 3)
    for node in 0..<count { if let row = row(node) { childStart[row + 2] += 1 } }
    for index in 0...count { childStart[index + 2] += childStart[index + 1] }
    var children = [Int32](repeating: 0, count: Int(childStart[count + 2]))
    for node in 0..<count {
      guard let row = row(node) else { continue }
      children[Int(childStart[row + 1])] = Int32(node)
      childStart[row + 1] += 1
    }
    childStart.removeLast()
    self.childStart = childStart
    self.children = children

    var groupBytes = [Int](repeating: 0, count: groups.count)
    var groupObjects = [Int](repeating: 0, count: groups.count)
    var typeObjects = [Int](repeating: 0, count: graph.typeNames.count)
    var typeShallowBytes = typeObjects
    var typeBytes = typeObjects
    for node in graph.nodes where !graph.isClosureValue(node) {
      let rank = Int(graph.typeRanks[node])
      typeObjects[rank] += 1
      typeShallowBytes[rank].addSaturating(graph.size(of: node) ?? 0)
    }
    // On entering an object, it counts for its path and its type unless an object of the same
    // path or type dominates it (one is open on the walk's path).
    var openGroups = [Int32](repeating: 0, count: groups.count)
    var openTypes = [Int32](repeating: 0, count: graph.typeNames.count)
    var openSuspects = 0
    var suspectNodes: [Int] = []
    func isSuspect(_ node: Int) -> Bool {
      groups.groupOfNode[node] >= 0 && dominators.retainedSize[node] > 0 && Int(clamping: dominators.retainedSize[node]) >= suspectBytes
    }
    var pathNode: [Int32] = [Int32(count)]
    var pathPosition: [Int32] = [childStart[count]]
    while let node = pathNode.last.map(Int.init) {
      let position = Int(pathPosition[pathPosition.count - 1])
      guard position < childStart[node + 1] else {
        pathNode.removeLast()
        pathPosition.removeLast()
        guard node != count else { continue }
        let group = Int(groups.groupOfNode[node])
        if group >= 0 { openGroups[group] -= 1 }
        if isSuspect(node) { openSuspects -= 1 }
        if !graph.isClosureValue(node) { openTypes[Int(graph.typeRanks[node])] -= 1 }
        continue
      }
      pathPosition[pathPosition.count - 1] += 1
      let child = Int(children[position])
      let bytes = Int(clamping: dominators.retainedSize[child])
      let group = Int(groups.groupOfNode[child])
      if group >= 0 {
        if openGroups[group] == 0 {
          groupBytes[group].addSaturating(bytes)
          groupObjects[group] += Int(dominators.retainedCount[child])
        }
        openGroups[group] += 1
      }
      if isSuspect(child) {
        if openSuspects == 0 { suspectNodes.append(child) }
        openSuspects += 1
      }
      if !graph.isClosureValue(child) {
        let rank = Int(graph.typeRanks[child])
        if openTypes[rank] == 0 { typeBytes[rank].addSaturating(bytes) }
        openTypes[rank] += 1
      }
      pathNode.append(Int32(child))
      pathPosition.append(childStart[child])
    }
    groupRetainedBytes = groupBytes
    groupRetainedObjects = groupObjects
    self.typeObjects = typeObjects
    self.typeShallowBytes = typeShallowBytes
    typeRetainedBytes = typeBytes
    self.suspectNodes = suspectNodes
  }

  /// Where the memory `node` retains accumulates, as MAT finds it: down the dominator tree
  /// through the child that retains most while it retains at least 80% of its parent, then the
  /// children there on the path that retains most of them. `nil` when nothing is below.
  func accumulation(below node: Int) -> Accumulation? {
    var point = node
    while true {
      let row = Int(childStart[point])..<Int(childStart[point + 1])
      guard let largest = children[row].max(by: { dominators.retainedSize[Int($0)] < dominators.retainedSize[Int($1)] }),
        Double(dominators.retainedSize[Int(largest)]) >= 0.8 * Double(dominators.retainedSize[point])
      else { break }
      point = Int(largest)
    }
    var byGroup: [Int32: Accumulation] = [:]
    for child in children[Int(childStart[point])..<Int(childStart[point + 1])].lazy.map(Int.init) {
      let group = groups.groupOfNode[child]
      guard group >= 0 else { continue }
      byGroup[group, default: Accumulation(example: child, objects: 0, bytes: 0, retainedObjects: 0)].objects += 1
      byGroup[group]!.bytes.addSaturating(Int(clamping: dominators.retainedSize[child]))
      byGroup[group]!.retainedObjects += Int(dominators.retainedCount[child])
    }
    if point != node, byGroup.isEmpty {
      return Accumulation(
        example: point, objects: 1, bytes: Int(clamping: dominators.retainedSize[point]),
        retainedObjects: Int(dominators.retainedCount[point]))
    }
    return byGroup.values.max { ($0.bytes, $1.example) < ($1.bytes, $0.example) }
  }
}
