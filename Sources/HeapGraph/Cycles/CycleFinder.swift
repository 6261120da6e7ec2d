/// Finds the retain cycles of an ``ObjectGraph``: every elementary cycle of strong references
/// up to a maximum length, each once.
///
/// This is FBRetainCycleDetector's search without its blind spots. The graph is first split
/// into strongly connected components (Tarjan), since every cycle lies inside one. Inside a
/// component, each cycle is found exactly once, from its smallest node *s*: a depth-first search
/// from *s* through larger nodes only, pruned by the breadth-first distance back to *s* (a path
/// that cannot close within the length bound is never extended). Unlike FBRetainCycleDetector's
/// global visited set, this misses no cycle: with A→C, C→A, A→B, B→C it reports both A→C→A and
/// A→B→C→A.
///
/// A dense component can hold astronomically many cycles. Per component, the finder lists the
/// shortest ``Configuration/maxCyclesPerComponent`` cycles and counts the rest; if the search
/// exceeds its step budget, the component is marked incomplete instead of running for hours.
///
/// ```swift
/// let report = CycleFinder().findCycles(in: graph)
/// print(report.cycles.map(\.description))
/// ```
/// ```text
/// ["MyApp.Feed.onUpdate -> closure #1 in MyApp.Feed.load().capture #0: Feed -> MyApp.Feed"]
/// ```
///
/// - Complexity: O(*n* + *e*) to find the components, then, per component of *m* nodes, at most
///   the configured step budget (the search is exponential in the worst case, as any cycle
///   enumeration must be).
public struct CycleFinder: Sendable {
  /// What the search looks for, and how much work it may do.
  public struct Configuration: Sendable, Hashable {
    /// The default longest cycle, counted in objects. Realistic Swift code has cycles of 10–20
    /// objects; MLeaksFinder uses 20, FBRetainCycleDetector's default of 10 misses many.
    public static let defaultMaxCycleLength = 20
    /// The default number of cycles listed per strongly connected component.
    public static let defaultMaxCyclesPerComponent = 100

    /// The longest cycle reported, counted in objects (closure contexts and boxes included).
    public var maxCycleLength: Int
    /// How many cycles are listed per component; the rest are counted.
    public var maxCyclesPerComponent: Int
    /// Search steps (edges examined, by the depth-first search and by the distance
    /// computations that prune it) a component may use: a fixed allowance plus
    /// `stepBudgetPerNode` per node of the component. A component that needs more is reported
    /// as incomplete, so no input makes the search run for hours.
    public var stepBudgetPerComponent: Int
    public var stepBudgetPerNode: Int

    public init(
      maxCycleLength: Int = defaultMaxCycleLength,
      maxCyclesPerComponent: Int = defaultMaxCyclesPerComponent,
      stepBudgetPerComponent: Int = 20_000_000,
      stepBudgetPerNode: Int = 400
    ) {
      precondition(maxCycleLength >= 1, "CycleFinder.Configuration: maxCycleLength must be at least 1")
      precondition(maxCyclesPerComponent >= 1, "CycleFinder.Configuration: maxCyclesPerComponent must be at least 1")
      self.maxCycleLength = maxCycleLength
      self.maxCyclesPerComponent = maxCyclesPerComponent
      self.stepBudgetPerComponent = stepBudgetPerComponent
      self.stepBudgetPerNode = stepBudgetPerNode
    }
  }

  public var configuration: Configuration

  public init(configuration: Configuration = Configuration()) {
    self.configuration = configuration
  }

  /// Finds the cycles of `graph`.
  ///
  /// - Parameters:
  ///   - graph: the heap to search.
  ///   - startNodes: if given, only cycles reachable from these nodes are searched (the
  ///     "candidates" of FBRetainCycleDetector); a cycle need not pass through a start node.
  ///   - progress: called as the search advances, for progress output.
  public func findCycles(
    in graph: ObjectGraph, from startNodes: [Int]? = nil, progress: (AnalysisStep) -> Void = { _ in }
  ) -> CycleReport {
    progress(.findingComponents)
    return findCycles(
      in: graph, components: StronglyConnectedComponents(graph: graph, startNodes: startNodes).components, progress: progress)
  }

  /// Finds the cycles of `graph` in its cyclic strongly connected `components`.
  func findCycles(in graph: ObjectGraph, components: [[Int32]], progress: (AnalysisStep) -> Void) -> CycleReport {
    var steps = 0
    return findCycles(in: graph, components: components, progress: progress, steps: &steps)
  }

  /// Finds the cycles of `graph` in its cyclic strongly connected `components`, adding the
  /// search's steps (``AnalysisWork/cycles``) to `steps`.
  func findCycles(
    in graph: ObjectGraph, components: [[Int32]], progress: (AnalysisStep) -> Void, steps: inout Int
  ) -> CycleReport {
    var search = ComponentCycleSearch(graph: graph, configuration: configuration)
    var results: [CycleReport.Component] = []
    for (index, members) in components.enumerated() {
      if index % 1024 == 0 { progress(.searchingComponents(completed: index, total: components.count)) }
      let outcome = search.run(members)
      steps += outcome.steps
      let cycles = outcome.cycles.map { path in RetainCycle(graph: graph, path: path) }.sorted()
      results.append(
        CycleReport.Component(
          objectCount: members.count,
          smallestObjectID: graph.objectID(of: Int(members[0])),
          cycles: cycles,
          foundCycleCount: outcome.foundCount,
          isComplete: outcome.isComplete))
    }
    progress(.searchingComponents(completed: components.count, total: components.count))
    return CycleReport(graph: graph, configuration: configuration, components: results)
  }
}
