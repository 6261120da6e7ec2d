import CPrefetch

/// The objects no root reaches, grouped into their strongly connected components: each cyclic
/// component is one, and every other unreached object is a component of its own. A leak group
/// starts at an *entry*, a component that no other unreached component holds.
///
/// A component is named by an id: the node itself for an object alone, or the object count plus
/// the index of its cycle in ``cycles``.
///
/// - Complexity: O(*n*) to build; O(*n* + *e*) over the unreached part for each search.
package struct UnreachedComponents: Sendable {
  let graph: ObjectGraph
  /// The cyclic components of the unreached part, each in node order.
  let cycles: [[Int32]]
  /// The component id of each node; -1 for a reached node.
  let component: [Int32]

  /// The components of the nodes `isUnreached` picks out, whose cyclic components are `cycles`.
  init(graph: ObjectGraph, isUnreached: (Int) -> Bool, cycles: [[Int32]]) {
    let count = graph.objectCount
    var component = [Int32](repeating: -1, count: count)
    for (index, members) in cycles.enumerated() {
      for member in members { component[Int(member)] = Int32(count + index) }
    }
    for node in 0..<count where component[node] < 0 && isUnreached(node) { component[node] = Int32(node) }
    self.graph = graph
    self.cycles = cycles
    self.component = component
  }

  /// The objects of `graph` that no strong reference holds and that are no root, in node order:
  /// where objects can leak, each is unreached, alone in its component, and that component's
  /// entry, whatever the other components are.
  package static func objectsNothingHolds(in graph: ObjectGraph) -> [Int] {
    let isHeld = NodeBits(count: graph.objectCount)
    defer { isHeld.release() }
    for target in graph.strongTargets { isHeld.set(Int(target)) }
    for root in graph.roots { isHeld.set(root.node) }
    return graph.nodes.filter { !isHeld[$0] }
  }

  /// The unreached nodes, in node order (read from ``component``, so that they need no array).
  var unreached: LazyFilterSequence<Range<Int>> { graph.nodes.lazy.filter { component[$0] >= 0 } }

  /// How many component ids there can be: one per node and one per cycle.
  private var idCount: Int { graph.objectCount + cycles.count }

  /// Whether `node`, an unreached node, is a component of its own that is in no cycle.
  func isAcyclic(_ node: Int) -> Bool { Int(component[node]) < graph.objectCount }

  /// The nodes of the component of `node`, an unreached node, in node order.
  func sortedMembers(ofComponentOf node: Int) -> [Int32] {
    let id = Int(component[node])
    return id >= graph.objectCount ? cycles[id - graph.objectCount] : [Int32(node)]
  }

  /// The nodes of the component of `node`, an unreached node.
  func members(ofComponentOf node: Int) -> [Int] {
    let id = Int(component[node])
    return id >= graph.objectCount ? cycles[id - graph.objectCount].map(Int.init) : [node]
  }

  /// The entries: the smallest node of each component that no other unreached component holds,
  /// in node order; adds the edges looked at to `steps`.
  func entries(steps: inout Int) -> [Int] {
    // Not an entry: a component held from outside, or one whose entry is already chosen.
    var isNotAnEntry = [Bool](repeating: false, count: idCount)
    let lookAhead = PrefetchDistance.inOrder
    component.withUnsafeBufferPointer { component in
      for node in unreached {
        steps += Int(graph.strongOffsets[node + 1] - graph.strongOffsets[node]) + 1
        for edge in Int(graph.strongOffsets[node])..<Int(graph.strongOffsets[node + 1]) {
          // The rows are read in order: the component of the target `lookAhead` edges on is asked for now.
          if edge &+ lookAhead < graph.strongTargets.count {
            cprefetch_for_reading(component.baseAddress! + Int(graph.strongTargets[edge &+ lookAhead]))
          }
          let target = Int(graph.strongTargets[edge])
          if component[target] >= 0 && component[target] != component[node] { isNotAnEntry[Int(component[target])] = true }
        }
      }
    }
    var entries: [Int] = []
    for node in unreached where !isNotAnEntry[Int(component[node])] {
      entries.append(node)  // the smallest node of its component (nodes are in id order)
      isNotAnEntry[Int(component[node])] = true
    }
    return entries
  }

  /// The entries (the smallest node of each) of the cycles of the program's own types that
  /// nothing holds but components with a framework object in them (`isFramework` of its type
  /// name) and the objects those alone hold, short of such cycles: what XCTest keeps alive for
  /// the whole run (its suite, each test case and the test case's stored properties) must not
  /// swallow a cycle a test made.
  func cyclesHeldOnlyByFramework(isFramework: (String) -> Bool) -> [Int] {
    let count = graph.objectCount
    var hasFramework = [Bool](repeating: false, count: idCount)
    for node in unreached where isFramework(graph.typeName(of: node)) { hasFramework[Int(component[node])] = true }
    var heldByFramework = [Bool](repeating: false, count: count)
    var queue = Array(unreached.filter { hasFramework[Int(component[$0])] })
    for node in queue { heldByFramework[node] = true }
    var reachedCycles: [Int] = []
    var isReachedCycle = [Bool](repeating: false, count: cycles.count)
    var next = 0
    while next < queue.count {
      let node = queue[next]
      next += 1
      for edge in Int(graph.strongOffsets[node])..<Int(graph.strongOffsets[node + 1]) {
        let target = Int(graph.strongTargets[edge])
        let targetComponent = Int(component[target])
        guard targetComponent >= 0, !heldByFramework[target] else { continue }
        if targetComponent >= count && !hasFramework[targetComponent] {  // a cycle of the program's own
          if !isReachedCycle[targetComponent - count] {
            isReachedCycle[targetComponent - count] = true
            reachedCycles.append(targetComponent - count)
          }
          continue
        }
        heldByFramework[target] = true
        queue.append(target)
      }
    }
    // Such a cycle is an entry when nothing else (another of the program's cycles) holds it too.
    var heldElsewhere = [Bool](repeating: false, count: cycles.count)
    for node in unreached where !heldByFramework[node] {
      for edge in Int(graph.strongOffsets[node])..<Int(graph.strongOffsets[node + 1]) {
        let targetComponent = Int(component[Int(graph.strongTargets[edge])])
        if targetComponent >= count && targetComponent != Int(component[node]) { heldElsewhere[targetComponent - count] = true }
      }
    }
    return reachedCycles.filter { !heldElsewhere[$0] }.map { Int(cycles[$0].min()!) }
  }
}
