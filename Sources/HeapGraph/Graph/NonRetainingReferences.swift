/// The references of a snapshot that do not retain their target (`weak`, `unowned`,
/// `unmanaged`), as nodes of an ``ObjectGraph``: kept apart from its strong edges so that every
/// search over strong edges reads only those, and shown where a reader asks what else points at
/// an object (the heap explorer's fields and referrers).
///
/// Stored as one list sorted by source, target and label rank, parallel references kept (a weak
/// and an unowned reference to the same object are two facts): most heaps have few of them, so
/// the list costs nothing per object.
struct NonRetainingReferences: Sendable {
  /// The source node of each reference, ascending.
  let sources: [Int32]
  /// The target node of each reference.
  let targets: [Int32]
  /// The label rank of each reference in the graph's labels (-1: no label).
  let labels: [Int32]
  /// How each reference holds its target.
  let ownerships: [Ownership]

  /// The non-retaining references of `snapshot`; `node` maps a snapshot index to its node
  /// (empty when they are the same) and `labelRank` a snapshot label to its rank.
  ///
  /// - Complexity: O(*e* + *w* log *w*) for *e* references of which *w* do not retain.
  init(of snapshot: HeapSnapshot, node canonicalNode: [Int32], labelRank: [Int32]) {
    func node(_ index: Int32) -> Int32 { canonicalNode.isEmpty ? index : canonicalNode[Int(index)] }
    var references: [(source: Int32, target: Int32, label: Int32, ownership: Ownership)] = []
    for (index, ownership) in snapshot.referenceOwnerships.enumerated() where !ownership.isRetaining {
      let label = snapshot.referenceLabels[index]
      references.append(
        (node(snapshot.referenceSources[index]), node(snapshot.referenceTargets[index]), label < 0 ? -1 : labelRank[Int(label)], ownership))
    }
    references.sort { ($0.source, $0.target, $0.label) < ($1.source, $1.target, $1.label) }
    sources = references.map(\.source)
    targets = references.map(\.target)
    labels = references.map(\.label)
    ownerships = references.map(\.ownership)
  }

  /// The number of references.
  var count: Int { sources.count }
}
