/// The result of a cycle search: every strongly connected component that can hold a retain
/// cycle, with the cycles found in it. A value, and deterministic: the same snapshot gives an
/// equal report whatever order the file listed objects and references in.
///
/// Render it with ``renderText(settingNames:names:)`` for people or ``renderDOT()`` for Graphviz; the JSON
/// report is ``HeapAnalysis/renderJSON()``, which holds the cycles and the leak analysis.
public struct CycleReport: Sendable, Equatable {
  /// A strongly connected component of strong references: the objects of every cycle through
  /// one of its objects.
  public struct Component: Sendable, Equatable {
    /// The number of objects in the component.
    public var objectCount: Int
    /// The smallest object id in the component, to find it in the snapshot.
    public var smallestObjectID: Int64
    /// The listed cycles: the shortest ones, at most `maxCyclesPerComponent`.
    public var cycles: [RetainCycle]
    /// How many cycles the search found (listed or not).
    public var foundCycleCount: Int
    /// `false` when the search stopped at its step budget, so more cycles may exist.
    public var isComplete: Bool

    /// Cycles found but not listed because of the per-component cap.
    public var unlistedCycleCount: Int { foundCycleCount - cycles.count }
  }

  /// The number of objects in the snapshot.
  public let objectCount: Int
  /// The number of references, of every ownership.
  public let referenceCount: Int
  /// The number of strong references.
  public let strongReferenceCount: Int
  /// Where the snapshot came from.
  public let metadata: HeapSnapshot.Metadata
  /// The search settings.
  public let configuration: CycleFinder.Configuration
  /// Every component that can hold a cycle, ordered by smallest object id. A component with no
  /// cycle within the length bound is still listed (its cycles are longer).
  public internal(set) var components: [Component]

  init(graph: ObjectGraph, configuration: CycleFinder.Configuration, components: [Component]) {
    objectCount = graph.objectCount
    referenceCount = graph.referenceCount
    strongReferenceCount = graph.strongReferenceCount
    metadata = graph.metadata
    self.configuration = configuration
    self.components = components
  }

  /// Every listed cycle, component by component.
  public var cycles: [RetainCycle] { components.flatMap(\.cycles) }

  /// How many cycles were found, listed or not.
  public var foundCycleCount: Int { components.reduce(0) { $0 + $1.foundCycleCount } }

  /// Whether any cycle was found.
  public var hasCycles: Bool { components.contains { $0.foundCycleCount > 0 } }
}
