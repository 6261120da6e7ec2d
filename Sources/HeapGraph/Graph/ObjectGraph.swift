import CPrefetch

/// A compact, read-only graph of a heap snapshot, built once for searching.
///
/// Nodes are the snapshot's objects in ascending object-id order (so the graph, and everything
/// computed from it, is the same whatever order the file listed objects in). Strong references
/// are stored as compressed sparse rows: each node's successors are sorted by target and label,
/// and parallel references to the same target are merged into one edge (the one with the
/// smallest label), so a cycle is counted once however many fields close it. Type names and
/// labels are interned and sorted, so comparing their indices compares the strings.
///
/// ```swift
/// let graph = ObjectGraph(snapshot)
/// for node in graph.nodes where graph.typeName(of: node) == "MyApp.Feed" {
///   print(graph.strongReferences(of: node).map { graph.typeName(of: $0.target) })
/// }
/// ```
/// ```text
/// ["closure #1 in MyApp.Feed.load()"]
/// ```
public struct ObjectGraph: Sendable {
  /// The number of objects.
  public let objectCount: Int
  /// The number of references in the snapshot, of every ownership.
  public let referenceCount: Int
  /// The number of strong references in the snapshot, before parallel ones are merged.
  public let strongReferenceCount: Int
  /// The snapshot's metadata.
  public let metadata: HeapSnapshot.Metadata
  /// The roots, as nodes.
  public let roots: [Root]

  let objectIDs: IntegerColumn
  let typeRanks: [Int32]
  let addresses: [UInt64]
  let sizes: IntegerColumn  // -1: unknown
  let generations: IntegerColumn  // Int64.min: unknown
  let stackIndices: [Int32]
  let kinds: [ObjectKind?]  // nil: not recorded
  let stacks: [HeapSnapshot.Stack]
  /// Distinct type names, sorted.
  let typeNames: [String]
  /// Distinct labels, sorted.
  let labels: [String]

  /// Successors of node `n` are at `strongOffsets[n] ..< strongOffsets[n + 1]`.
  let strongOffsets: [Int32]
  let strongTargets: [Int32]
  /// Label ranks of the strong edges (-1: no label).
  let strongLabels: EdgeLabels
  /// The weak, unowned and unmanaged references, apart from the strong edges.
  let nonRetaining: NonRetainingReferences

  /// A root as a node of the graph.
  public struct Root: Sendable, Hashable {
    public var node: Int
    public var kind: RootKind
    public var label: String?

    public init(node: Int, kind: RootKind, label: String? = nil) {
      self.node = node
      self.kind = kind
      self.label = label
    }
  }

  /// Builds the graph of `snapshot`.
  ///
  /// - Complexity: O(*n* log *n* + *e*) for *n* objects and *e* references; O(*n* + *e*) when
  ///   the snapshot lists objects in id order.
  public init(_ snapshot: HeapSnapshot) {
    let count = snapshot.objectCount
    objectCount = count
    referenceCount = snapshot.referenceCount
    metadata = snapshot.metadata
    stacks = snapshot.stacks

    // Canonical node order: ascending object id.
    let ids = snapshot.objectIDs
    var isSorted = true
    for index in ids.indices.dropFirst() where ids[index - 1] > ids[index] {
      isSorted = false
      break
    }
    var canonicalNode: [Int32] = []
    if isSorted {
      objectIDs = IntegerColumn(ids, unknown: Int64.min)
    } else {
      var pairs = ids.enumerated().map { (id: $0.element, index: Int32($0.offset)) }
      pairs.sort { $0.id < $1.id }
      objectIDs = IntegerColumn(pairs.map(\.id), unknown: Int64.min)
      canonicalNode = [Int32](repeating: 0, count: count)
      for (node, pair) in pairs.enumerated() { canonicalNode[Int(pair.index)] = Int32(node) }
    }
    func node(_ index: Int32) -> Int32 { canonicalNode.isEmpty ? index : canonicalNode[Int(index)] }
    func permuted<T>(_ column: [T]) -> [T] {
      guard !canonicalNode.isEmpty else { return column }
      var result = column
      for (index, value) in column.enumerated() { result[Int(canonicalNode[index])] = value }
      return result
    }

    let (sortedTypes, typeRank) = Self.sortedTable(snapshot.typeNames.strings)
    typeNames = sortedTypes
    typeRanks = permuted(snapshot.objectTypes.map { typeRank[Int($0)] })
    addresses = permuted(snapshot.objectAddresses)
    sizes = IntegerColumn(permuted(snapshot.objectSizes), unknown: -1)
    generations = IntegerColumn(permuted(snapshot.objectGenerations), unknown: Int64.min)
    stackIndices = permuted(snapshot.objectStacks)
    kinds = permuted(snapshot.objectKinds)

    let (sortedLabels, labelRank) = Self.sortedTable(snapshot.labels.strings)
    labels = sortedLabels

    // Strong edges as CSR: count per source, place, then sort and merge each row.
    let csr = Self.strongEdges(of: snapshot, node: canonicalNode, labelRank: labelRank)
    strongReferenceCount = csr.unmergedCount
    strongOffsets = csr.offsets
    strongTargets = csr.targets
    strongLabels = EdgeLabels(csr.labels, labelCount: sortedLabels.count)
    nonRetaining = NonRetainingReferences(of: snapshot, node: canonicalNode, labelRank: labelRank)

    var rootNodes: [Root] = []
    if !snapshot.roots.isEmpty {
      let index = try? ObjectIDIndex(ids: snapshot.objectIDs)
      for root in snapshot.roots {
        guard let position = index?[root.object] else { continue }
        rootNodes.append(Root(node: Int(node(position)), kind: root.kind, label: root.label))
      }
    }
    roots = rootNodes
  }

  /// The strong references of `snapshot` as compressed sparse rows over nodes (`node` maps a
  /// snapshot index to its node; empty when they are the same), each row sorted by target and
  /// label rank with parallel references merged, and how many there were before merging.
  ///
  /// The rows are placed, sorted and merged in the arrays they end in: no column of sort keys
  /// beside them (a fifth of the graph's size at its peak).
  private static func strongEdges(
    of snapshot: HeapSnapshot, node canonicalNode: [Int32], labelRank: [Int32]
  ) -> (offsets: [Int32], targets: [Int32], labels: [Int32], unmergedCount: Int) {
    let count = snapshot.objectCount
    // Every column read and written through a buffer: with plain arrays (tried), this function
    // took half again as long, most of it in the checks of the arrays the closures mutate.
    return snapshot.referenceSources.withUnsafeBufferPointer { sources in
      snapshot.referenceTargets.withUnsafeBufferPointer { referenceTargets in
        snapshot.referenceLabels.withUnsafeBufferPointer { referenceLabels in
          snapshot.referenceOwnerships.withUnsafeBufferPointer { ownerships in
            canonicalNode.withUnsafeBufferPointer { canonicalNode in
              func node(_ index: Int32) -> Int32 { canonicalNode.isEmpty ? index : canonicalNode[Int(index)] }
              func isRetaining(_ index: Int) -> Bool { ownerships[index].isRetaining }
              // Where each row starts; while the edges are placed, where its next edge goes.
              var offsets = [Int32](repeating: 0, count: count + 1)
              var strongCount = 0
              // References come in any order: the row of the reference `lookAhead` on is asked
              // for now, so that the misses of a big heap's rows overlap.
              let lookAhead = PrefetchDistance.inOrder
              offsets.withUnsafeMutableBufferPointer { offsets in
                for index in sources.indices {
                  if index &+ lookAhead < sources.count {
                    cprefetch_for_writing(offsets.baseAddress! + Int(node(sources[index &+ lookAhead])))
                  }
                  guard isRetaining(index) else { continue }
                  offsets[Int(node(sources[index])) + 1] += 1
                  strongCount += 1
                }
              }
              var targets = [Int32](repeating: 0, count: strongCount)
              // Label rank + 1 (0: no label) until the rows are merged.
              var labels = [Int32](repeating: 0, count: strongCount)
              var merged = 0
              offsets.withUnsafeMutableBufferPointer { offsets in
                targets.withUnsafeMutableBufferPointer { targets in
                  labels.withUnsafeMutableBufferPointer { labels in
                    for index in 0..<count { offsets[index + 1] += offsets[index] }
                    // Placing advances each row's start to its end, the next row's start.
                    for index in sources.indices {
                      // The row's start of the reference `lookAhead` on, and the place where the
                      // reference half as far on goes, whose row's start came in by now.
                      if index &+ lookAhead < sources.count {
                        cprefetch_for_writing(offsets.baseAddress! + Int(node(sources[index &+ lookAhead])))
                      }
                      if index &+ lookAhead / 2 < sources.count {
                        let place = Int(offsets[Int(node(sources[index &+ lookAhead / 2]))])
                        cprefetch_for_writing(targets.baseAddress! + place)
                        cprefetch_for_writing(labels.baseAddress! + place)
                      }
                      guard isRetaining(index) else { continue }
                      let source = Int(node(sources[index]))
                      let label = referenceLabels[index]
                      let position = Int(offsets[source])
                      targets[position] = node(referenceTargets[index])
                      labels[position] = label < 0 ? 0 : labelRank[Int(label)] + 1
                      offsets[source] += 1
                    }
                    // Each row sorted by target and label, parallel edges merged (the smallest
                    // label kept), moved down over what merging freed; the offsets rewritten.
                    var rowStart = 0
                    for source in 0..<count {
                      let rowEnd = Int(offsets[source])
                      sortRow(targets, labels, rowStart..<rowEnd)
                      var previousTarget: Int32 = -1
                      for position in rowStart..<rowEnd where targets[position] != previousTarget {
                        previousTarget = targets[position]
                        targets[merged] = targets[position]
                        labels[merged] = labels[position] - 1
                        merged += 1
                      }
                      offsets[source] = Int32(merged)
                      rowStart = rowEnd
                    }
                    // offsets[source] is the end of its row: shift them to be starts.
                    for index in stride(from: count, to: 0, by: -1) { offsets[index] = offsets[index - 1] }
                    offsets[0] = 0
                  }
                }
              }
              targets.removeLast(strongCount - merged)
              labels.removeLast(strongCount - merged)
              return (offsets, targets, labels, strongCount)
            }
          }
        }
      }
    }
  }

  /// Sorts `strings` and returns, for each original index, its rank in the sorted table.
  private static func sortedTable(_ strings: [String]) -> (sorted: [String], rank: [Int32]) {
    let order = strings.indices.sorted { strings[$0] < strings[$1] }
    var rank = [Int32](repeating: 0, count: strings.count)
    for (position, index) in order.enumerated() { rank[index] = Int32(position) }
    return (order.map { strings[$0] }, rank)
  }

  /// Sorts the edges of `row` by target, then label: in place for a short row, through a
  /// row-sized column of keys for a long one.
  private static func sortRow(_ targets: UnsafeMutableBufferPointer<Int32>, _ labels: UnsafeMutableBufferPointer<Int32>, _ row: Range<Int>)
  {
    func key(_ position: Int) -> UInt64 {
      UInt64(UInt32(bitPattern: targets[position])) << 32 | UInt64(UInt32(bitPattern: labels[position]))
    }
    if row.count <= 16 {
      var index = row.lowerBound + 1
      while index < row.upperBound {
        let (target, label, moving) = (targets[index], labels[index], key(index))
        var hole = index
        while hole > row.lowerBound && key(hole - 1) > moving {
          targets[hole] = targets[hole - 1]
          labels[hole] = labels[hole - 1]
          hole -= 1
        }
        targets[hole] = target
        labels[hole] = label
        index += 1
      }
    } else {
      var keys = row.map(key)
      keys.sort()
      for (offset, sorted) in keys.enumerated() {
        targets[row.lowerBound + offset] = Int32(truncatingIfNeeded: sorted >> 32)
        labels[row.lowerBound + offset] = Int32(truncatingIfNeeded: sorted & 0xFFFF_FFFF)
      }
    }
  }
}

extension ObjectGraph {
  /// The nodes, `0..<objectCount`, in ascending object-id order.
  public var nodes: Range<Int> { 0..<objectCount }

  /// The snapshot id of `node`.
  public func objectID(of node: Int) -> Int64 { objectIDs[node] }

  /// The type name of `node`.
  public func typeName(of node: Int) -> String { typeNames[Int(typeRanks[node])] }

  /// The address of `node` in the captured process, when known.
  public func address(of node: Int) -> UInt64? { addresses[node] == 0 ? nil : addresses[node] }

  /// The size of `node` in bytes, when known.
  public func size(of node: Int) -> Int? { sizes[node] < 0 ? nil : Int(sizes[node]) }

  /// The tracker generation of `node`, when known.
  public func generation(of node: Int) -> Int? { generations[node] == Int64.min ? nil : Int(generations[node]) }

  /// Whether `node` is a class instance, a closure context or a box: as the snapshot records
  /// it, or else as its type name suggests (``ObjectKind/inferred(fromTypeName:)``).
  public func kind(of node: Int) -> ObjectKind {
    kinds[node] ?? .inferred(fromTypeName: typeName(of: node))
  }

  /// Whether `node` is a closure value rather than an allocation: a closure whose only capture
  /// is an object uses that object as its context, so a capture records it with kind `closure`
  /// and no address. Counts of objects leave closure values out.
  public func isClosureValue(_ node: Int) -> Bool {
    kinds[node] == .closureContext && addresses[node] == 0
  }

  /// The number of allocations among the nodes: ``objectCount`` less the closure values.
  public var allocationCount: Int { nodes.count { !isClosureValue($0) } }

  /// The allocation stack of `node`, when captured.
  public func allocationStack(of node: Int) -> HeapSnapshot.Stack? {
    stackIndices[node] < 0 ? nil : stacks[Int(stackIndices[node])]
  }

  /// The node of the object with `id`, or `nil`.
  ///
  /// - Complexity: O(log *n*).
  public func node(forObjectID id: Int64) -> Int? {
    var low = 0
    var high = objectIDs.count
    while low < high {
      let middle = (low + high) / 2
      if objectIDs[middle] < id { low = middle + 1 } else { high = middle }
    }
    return low < objectIDs.count && objectIDs[low] == id ? low : nil
  }

  /// The strong references of `node`, sorted by target, parallel references merged.
  public func strongReferences(of node: Int) -> [(target: Int, label: String?)] {
    (Int(strongOffsets[node])..<Int(strongOffsets[node + 1])).map { edge in
      (Int(strongTargets[edge]), label(ofEdge: edge))
    }
  }

  /// The label of the strong edge from `source` to `target`, or `nil` when there is no such edge
  /// or it has no label.
  public func label(from source: Int, to target: Int) -> String? {
    var low = Int(strongOffsets[source])
    var high = Int(strongOffsets[source + 1])
    while low < high {
      let middle = (low + high) / 2
      if strongTargets[middle] < target { low = middle + 1 } else { high = middle }
    }
    guard low < Int(strongOffsets[source + 1]), strongTargets[low] == Int32(target) else { return nil }
    return label(ofEdge: low)
  }

  func label(ofEdge edge: Int) -> String? {
    let label = strongLabels[edge]
    return label < 0 ? nil : labels[Int(label)]
  }
}
