/// The work one ``HeapAnalysis`` did, counted in steps in the inner loops of each of its phases
/// (an edge followed, a link of a path climbed, a node visited), so that a test can tell an
/// analysis whose cost grows with the heap from one that grows faster, without timing anything.
///
/// A step costs one increment of a local integer, next to work that costs far more (a load from
/// a column of millions of entries), so the count is always kept.
///
/// ```swift
/// let small = HeapAnalysis(graph: graph(size: 100_000)).work
/// let large = HeapAnalysis(graph: graph(size: 200_000)).work
/// large.total <= 5 * small.total / 2  // linear: twice the heap, about twice the steps
/// ```
package struct AnalysisWork: Sendable, Hashable {
  /// Tarjan's search for the strongly connected components: nodes and edges.
  package var components = 0
  /// The cycle search inside the components: edges looked at (the step budget's steps).
  package var cycles = 0
  /// The shortest paths from the roots: edges followed.
  package var reachability = 0
  /// The unreached components and their entries: edges between unreached objects.
  package var leakEntries = 0
  /// The description of each entry: the search for its shortest cycle.
  package var entryDescriptions = 0
  /// The dominator tree: depth-first search, predecessors, semidominators and their
  /// compressed paths, dominators, retained sizes.
  package var dominators = 0
  /// The leak groups: instances counted.
  package var leakGroups = 0
  /// The survivors: objects tested and retaining paths written.
  package var survivors = 0

  package init() {}

  /// Every phase, by name, for a test's message.
  package var phases: [(name: String, steps: Int)] {
    [
      ("components", components), ("cycles", cycles), ("reachability", reachability), ("leakEntries", leakEntries),
      ("entryDescriptions", entryDescriptions), ("dominators", dominators), ("leakGroups", leakGroups),
      ("survivors", survivors),
    ]
  }

  /// The steps of every phase, summed.
  package var total: Int { phases.reduce(0) { $0 + $1.steps } }
}
