/// Everything `leak-detector` finds in one heap: the retain cycles, the leaked objects and the
/// survivors, and the findings a CI gate compares (one per fingerprint). The one entry point for
/// analysis: `analyze`, `gate`, `diff` and the leak checks in tests all build this value, with
/// the same options, so they find the same things.
///
/// ```swift
/// let analysis = HeapAnalysis(graph: ObjectGraph(snapshot))
/// print(analysis.renderText(), terminator: "")
/// ```
/// ```text
/// 1 retain cycle in 1 strongly connected component
/// 3 objects, 3 references (3 strong); cycles of up to 20 objects
///
/// Component 1: 2 objects, 1 cycle
///   1) MyApp.Feed.onUpdate -> closure #1 in MyApp.Feed.load().capture #0: Feed -> MyApp.Feed
///      fingerprint d4a4e9dbdf8a2c38
///      - MyApp.Feed (object 1)
///      - closure #1 in MyApp.Feed.load() (object 2)
///
/// Leaks: 2 objects unreachable from every root, in 1 group
///   1) 1 × MyApp.Feed.onUpdate -> closure #1 in MyApp.Feed.load().capture #0: Feed -> MyApp.Feed  (2 objects, 0 bytes retained; fingerprint 5bd0b7bf7e1f1e5c; first object 1)
/// ```
public struct HeapAnalysis: Sendable {
  /// What to look for.
  public struct Options: Sendable, Hashable {
    /// How cycles are searched: the longest cycle, how many are listed per component.
    public var cycles: CycleFinder.Configuration
    /// Objects that should be gone: those a root still reaches are reported as survivors.
    public var expectedDead: LeakAnalysis.ExpectedDead?

    public init(cycles: CycleFinder.Configuration = .init(), expectedDead: LeakAnalysis.ExpectedDead? = nil) {
      self.cycles = cycles
      self.expectedDead = expectedDead
    }
  }

  /// The graph analysed.
  public let graph: ObjectGraph
  /// The options it was analysed with.
  public let options: Options
  /// The retain cycles, by strongly connected component.
  public let cycles: CycleReport
  /// Leaked objects (unreachable from every root) and survivors.
  public let leaks: LeakAnalysis
  /// Cycles, leak groups and survivors as one list, one finding per fingerprint, in a stable order.
  public let findings: [HeapFinding]
  /// Every reachable object's shortest path from a root.
  let shortestPaths: ShortestPathTree

  /// Analyses `graph`.
  ///
  /// - Parameters:
  ///   - startNodes: if given, only cycles reachable from these nodes are searched (the
  ///     candidates of a live check); leaks and survivors are always looked for in the whole graph.
  ///   - progress: called as the analysis advances, for progress output.
  /// - Complexity: the cycle search's (see ``CycleFinder``), plus O(*n* + *e*) and the dominator tree for leaks.
  public init(
    graph: ObjectGraph, options: Options = Options(), startNodes: [Int]? = nil,
    progress: (AnalysisStep) -> Void = { _ in }
  ) {
    self.graph = graph
    self.options = options
    cycles = CycleFinder(configuration: options.cycles).findCycles(in: graph, from: startNodes, progress: progress)
    progress(.findingLeaks)
    shortestPaths = ShortestPathTree(graph: graph)
    leaks = LeakAnalysis(graph: graph, expectedDead: options.expectedDead, shortestPaths: shortestPaths)
    findings = HeapFinding.findings(cycles: cycles, analysis: leaks, graph: graph)
  }

  /// Whether anything was found: a cycle, a leak group or a survivor.
  public var hasFindings: Bool { cycles.hasCycles || leaks.hasFindings }
}
