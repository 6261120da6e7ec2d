/// Every reachable object's shortest retaining path from a root, reduced to a 64-bit key of its
/// root (kind and label), labels and types, subscripts collapsed everywhere (`feeds[3]` and
/// `feeds[4]` are `feeds[*]`, and so are a root's `continuations[0]` and `continuations[1]`), so
/// that two snapshots' paths compare without building strings, with one example object per path
/// (``HeapTally`` writes a path out from it).
///
/// ```swift
/// let paths = RetainingPaths(graph, shortestPaths: ShortestPathTree(graph: graph))
/// let example = paths.example[paths.keys[node]]  // an object with the same path as `node`
/// ```
struct RetainingPaths {
  /// One object per path key.
  private(set) var example: [UInt64: Int] = [:]
  /// The path key of each node; 0 for a node no root reaches.
  private(set) var keys: [UInt64]
  private let tree: ShortestPathTree

  /// - Complexity: O(*n* + *e*), plus hashing each distinct type name and label once.
  init(_ graph: ObjectGraph, shortestPaths tree: ShortestPathTree) {
    self.tree = tree
    let hashing = KeyHashing(graph)
    var keys = [UInt64](repeating: 0, count: graph.objectCount)
    for node in tree.order.lazy.map(Int.init) {
      let parent = tree.parent[node]
      let key = hashing.key(of: node, parentKey: parent >= 0 ? keys[Int(parent)] : nil, tree: tree)
      keys[node] = key
      if example[key] == nil { example[key] = node }
    }
    self.keys = keys
  }

  /// How a path's key is made: from its root's, then from its holder's path key, the label of
  /// the reference and the type it leads to. One place for it, whether the keys of all nodes are
  /// kept (``RetainingPaths``) or only those of their groups (``PathGroups``).
  struct KeyHashing {
    private let graph: ObjectGraph
    private let typeKeys: [UInt64]
    private let labelKeys: [UInt64]
    private var rootKeys: [Int: UInt64] = [:]

    init(_ graph: ObjectGraph) {
      self.graph = graph
      typeKeys = graph.typeNames.map { RetainingPaths.hash($0) }
      labelKeys = graph.labels.map { RetainingPaths.hash(RetainingPaths.collapsingSubscripts($0)) }
      for root in graph.roots where rootKeys[root.node] == nil {
        rootKeys[root.node] = RetainingPaths.hash(
          root.kind == .external ? root.kind.rawValue : "\(root.kind) \(RetainingPaths.rootLabel(root) ?? "")")
      }
    }

    /// The key of reachable `node`'s path, whose holder's path has `parentKey` (`nil` for a root's object).
    func key(of node: Int, parentKey: UInt64?, tree: ShortestPathTree) -> UInt64 {
      var key = rootKeys[node] ?? 0
      if let parentKey {
        let label = graph.strongLabels[tree.parentEdge(of: node)]
        key = RetainingPaths.combine(parentKey, label < 0 ? 0 : labelKeys[Int(label)])
      }
      return RetainingPaths.combine(key, typeKeys[Int(graph.typeRanks[node])])
    }
  }

  func parentKey(of node: Int) -> UInt64? {
    let parent = tree.parent[node]
    return parent >= 0 ? keys[Int(parent)] : nil
  }

  /// A root's label with subscripts collapsed, as paths use it.
  static func rootLabel(_ root: ObjectGraph.Root) -> String? {
    root.label.map(collapsingSubscripts)
  }

  /// How a path names its root: `global App.feeds` (label subscripts collapsed), the kind alone
  /// for an external or unlabelled root, `root` when none is known.
  static func origin(_ root: ObjectGraph.Root?) -> String {
    guard let root else { return "root" }
    guard root.kind != .external, let label = rootLabel(root) else { return root.kind.rawValue }
    return "\(root.kind.rawValue) \(label)"
  }

  /// `items[3]` → `items[*]`, `cache["a"].value` → `cache[*].value`.
  static func collapsingSubscripts(_ label: String) -> String {
    guard label.containsBytes("[") else { return label }
    var result = ""
    var depth = 0
    for character in label {
      if character == "[" {
        if depth == 0 { result += "[*]" }
        depth += 1
      } else if character == "]", depth > 0 {
        depth -= 1
      } else if depth == 0 {
        result.append(character)
      }
    }
    return result
  }

  /// FNV-1a over UTF-8.
  fileprivate static func hash(_ string: String) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in string.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return hash
  }

  fileprivate static func combine(_ key: UInt64, _ part: UInt64) -> UInt64 {
    var mixed = (key ^ part) &* 0x9e37_79b9_7f4a_7c15
    mixed ^= mixed >> 31
    return mixed
  }
}
