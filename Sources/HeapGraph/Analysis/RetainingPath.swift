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
  ///   search of the graph from the leaked parts' entries.
  public func retainingPath(to node: Int) -> RetainingPath {
    if let chain = shortestPaths.path(to: node) {
      let root = graph.roots.first { $0.node == chain[0] }
      return RetainingPath(
        origin: .root(kind: root?.kind ?? .unknown, label: root?.label),
        steps: LeakAnalysis.Survivor.Step.steps(of: chain, in: graph, tree: shortestPaths),
        originSite: graph.allocationStack(of: chain[0])?.frames.allocationSite)
    }
    let entries = leaks.leakGroups.flatMap(\.entryObjectIDs).compactMap(graph.node(forObjectID:))
    let tree = ShortestPathTree(graph: graph, sources: entries)
    return RetainingPath(origin: .leaked, steps: LeakAnalysis.Survivor.Step.steps(of: tree.path(to: node) ?? [node], in: graph, tree: tree))
  }
}
