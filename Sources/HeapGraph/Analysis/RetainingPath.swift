/// The shortest chain of strong references that keeps an object alive: from a root when one
/// reaches it, otherwise from the entry of the leaked part that holds it (an object or a cycle
/// that nothing else holds).
///
/// ```text
/// global App.shared: MyApp.App.cache -> MyApp.Cache.items[3] -> MyApp.Item
/// ```
public struct RetainingPath: Sendable, Hashable, CustomStringConvertible {
  /// Where the chain starts.
  public enum Origin: Sendable, Hashable {
    /// A root of the snapshot holds the first object: its kind (`global`, `external`) and label.
    case root(kind: RootKind, label: String?)
    /// No root reaches the object: the first object is the entry of a leaked part.
    case leaked
  }

  public var origin: Origin
  /// From the first object to the object itself; each step names the reference to the next.
  public var steps: [LeakAnalysis.Survivor.Step]
  /// Where the first object was allocated, or, for a closure, where it is written (its code's
  /// `file:line`), when the snapshot says.
  public var originSite: StackFrame? = nil

  /// `global App.shared: MyApp.App.cache -> MyApp.Item`, or `leaked: …`.
  public var description: String {
    let start =
      switch origin {
      case .root(let kind, let label): [kind.rawValue, label].compactMap { $0 }.joined(separator: " ")
      case .leaked: "leaked"
      }
    return "\(start): " + steps.map(\.description).joined(separator: " -> ")
  }
}

extension HeapAnalysis {
  /// The shortest chain of strong references that keeps `node` alive.
  ///
  /// - Complexity: O(length of the path) when a root reaches `node`; otherwise one breadth-first
  ///   search of the graph from the leaked parts' entries. For several objects,
  ///   ``retainingPaths(to:)`` searches once for all of them.
  public func retainingPath(to node: Int) -> RetainingPath {
    retainingPaths(to: [node])[0]
  }

  /// The shortest chain of strong references that keeps each of `nodes` alive, in their order.
  ///
  /// - Complexity: O(length of each path), plus, when no root reaches some of them, one
  ///   breadth-first search of the graph from the leaked parts' entries for all of them.
  public func retainingPaths(to nodes: [Int]) -> [RetainingPath] {
    var steps = 0
    return retainingPaths(to: nodes, steps: &steps)
  }

  /// ``retainingPaths(to:)``, adding its work to `steps`: the objects of the paths, and the
  /// edges the search from the leaked parts followed.
  package func retainingPaths(to nodes: [Int], steps: inout Int) -> [RetainingPath] {
    var rootOfNode: [Int: ObjectGraph.Root] = [:]
    for root in graph.roots where rootOfNode[root.node] == nil { rootOfNode[root.node] = root }
    var leakedPaths: ShortestPathTree?
    return nodes.map { node in
      if let chain = shortestPaths.path(to: node) {
        steps += chain.count
        let root = rootOfNode[chain[0]]
        return RetainingPath(
          origin: .root(kind: root?.kind ?? .unknown, label: root?.label),
          steps: LeakAnalysis.Survivor.Step.steps(of: chain, in: graph, tree: shortestPaths),
          originSite: graph.allocationStack(of: chain[0])?.frames.allocationSite)
      }
      let tree =
        leakedPaths
        ?? ShortestPathTree(graph: graph, sources: leaks.leakGroups.flatMap(\.entryObjectIDs).compactMap(graph.node(forObjectID:)))
      if leakedPaths == nil {
        leakedPaths = tree
        steps += tree.steps
      }
      let chain = tree.path(to: node) ?? [node]
      steps += chain.count
      return RetainingPath(origin: .leaked, steps: LeakAnalysis.Survivor.Step.steps(of: chain, in: graph, tree: tree))
    }
  }
}
