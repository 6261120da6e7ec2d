/// Everything `leak-detector` finds in one heap: the retain cycles, the leaked objects and the
/// survivors, and the findings a CI gate compares (one per fingerprint). The one entry point for
/// analysis: `analyze`, `gate`, `diff` and the leak checks in tests all build this value, with
/// the same options, so they find the same things.
///
/// ```swift
/// let analysis = HeapAnalysis(graph: ObjectGraph(snapshot), options: .init(expectedDead: .generation(atLeast: 2)))
/// print(analysis.renderText(), terminator: "")
/// ```
/// ```text
/// 2 retain cycles in 2 strongly connected components
/// 8 objects, 9 references (7 strong); cycles of up to 20 objects
/// Names from App are written without their module.
///
/// Leaks: 5 objects unreachable from every root, in 2 groups
///   1) 1 × Vendor.Pool  (2 objects, 1,048 bytes retained; fingerprint 6a1c94cfb18afabc; first object 20)
///   2) 1 × Cache.entries["a"] → Entry.owner → Cache  (3 objects, 144 bytes retained; fingerprint 387510702306f2fb; first object 10)
///
/// Survivors: 1 object expected dead still reachable
///   1) global App.shared: AppState.feeds[0] → Feed
///      suspect ~~~ AppState.feeds[0]; 80 bytes retained; fingerprint 1aef726e22a7cf71
///
/// Component 2: 2 objects, 1 cycle (leaked: leak group 2 above)
///   1) Cache.entries["a"] → Entry.owner → Cache
///      fingerprint c69426e4d2ea887e
///      - Cache (object 10, 0xa000) allocated at Screen.cache() (Screen.swift:30)
///      - Entry (object 11, 0xb000) allocated at Screen.cache() (Screen.swift:30)
///
/// Component 1: 2 objects, 1 cycle (still reachable)
///   1) Feed.onUpdate → closure #1 in Feed.load().capture #0: Feed → Feed
///      in short: Feed.onUpdate → closure in Feed.load() → Feed
///      fingerprint ec82309748476178
///      - Feed (object 2, 0x2000) allocated at Screen.show() (Screen.swift:14)
///      - closure #1 in Feed.load() (object 3, 0x3000) allocated at closure #1 in Feed.load() (Feed.swift:21)
/// ```
public struct HeapAnalysis: Sendable {
  /// What to look for.
  public struct Options: Sendable, Hashable {
    /// How cycles are searched: the longest cycle, how many are listed per component.
    public var cycles: CycleFinder.Configuration
    /// Objects that should be gone: those a root still reaches are reported as survivors.
    public var expectedDead: LeakAnalysis.ExpectedDead?
    /// Whether the snapshot's roots are all there are (a whole-process capture scanned every
    /// root region), so that a snapshot without roots has leaked every object. Otherwise no roots
    /// means that the producer listed none, and nothing can be called leaked.
    public var rootsAreComplete: Bool
    /// The types of runtime and test-framework objects (their `type` rules): a cycle of other
    /// types that only such objects hold (an XCTest test case's stored property, say) is a leak
    /// group of its own, not part of the framework's, which reports suppress. `nil`: no such types.
    public var frameworkTypes: Suppressions?
    /// The code of the package being checked: a leak group's entry is the object its code
    /// made, and its own findings come before those of its dependencies.
    public var ownCode: OwnCode
    /// Whether a report of what holds the memory (``HeapMemory``) will be made: the reachable
    /// objects are then grouped by their paths while the leaks are analysed, on a core that
    /// would otherwise wait.
    public var summarizesHeldMemory: Bool

    public init(
      cycles: CycleFinder.Configuration = .init(), expectedDead: LeakAnalysis.ExpectedDead? = nil,
      rootsAreComplete: Bool = false, frameworkTypes: Suppressions? = nil, ownCode: OwnCode = OwnCode(packageDirectory: nil),
      summarizesHeldMemory: Bool = false
    ) {
      self.cycles = cycles
      self.expectedDead = expectedDead
      self.rootsAreComplete = rootsAreComplete
      self.frameworkTypes = frameworkTypes
      self.ownCode = ownCode
      self.summarizesHeldMemory = summarizesHeldMemory
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
  /// The reachable objects grouped by path, if ``Options/summarizesHeldMemory``.
  let pathGroups: PathGroups?
  /// The work the analysis did, by phase, in steps.
  package let work: AnalysisWork

  /// Analyses `graph`.
  ///
  /// - Parameters:
  ///   - graph: the heap to analyse.
  ///   - options: the cycle search's settings, the objects expected dead, and whether the roots
  ///     are complete.
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
    progress(.findingComponents)
    // The second core, while this one searches the components: the shortest paths, then the
    // dominator tree's search from the entries known before the components are.
    let shortestPathWork = ConcurrentResult { ShortestPathTree(graph: graph) }
    let dominatorSearch = ConcurrentResult {
      LeakAnalysis.beginDominatorSearch(graph: graph, rootsAreComplete: options.rootsAreComplete)
    }
    let componentSearch = StronglyConnectedComponents(graph: graph, startNodes: startNodes)
    let components = componentSearch.components
    let shortestPaths = shortestPathWork.value
    // Leaks on the second core while this one searches cycles; the whole graph's components
    // serve the leak analysis too.
    let leakWork = ConcurrentResult {
      let leaks = LeakAnalysis(
        graph: graph, expectedDead: options.expectedDead, rootsAreComplete: options.rootsAreComplete, shortestPaths: shortestPaths,
        cyclicComponents: startNodes == nil ? components : nil, frameworkTypes: options.frameworkTypes,
        ownCode: options.ownCode, dominatorSearch: dominatorSearch)
      return (leaks, HeapFinding.findings(leaks: leaks, graph: graph))
    }
    var cycleSteps = 0
    cycles = CycleFinder(configuration: options.cycles).findCycles(
      in: graph, components: components, progress: progress, steps: &cycleSteps)
    let cycleFindings = HeapFinding.findings(cycles: cycles)
    pathGroups = options.summarizesHeldMemory ? PathGroups(graph: graph, tree: shortestPaths) : nil
    progress(.findingLeaks)
    let leakFindings: [HeapFinding]
    (leaks, leakFindings) = leakWork.value
    self.shortestPaths = shortestPaths
    findings = HeapFinding.merged(cycleFindings + leakFindings)
    var work = leaks.work
    work.components = componentSearch.steps
    work.cycles = cycleSteps
    work.reachability = shortestPaths.steps
    self.work = work
  }

  /// Whether anything was found: a cycle, a leak group or a survivor.
  public var hasFindings: Bool { cycles.hasCycles || leaks.hasFindings }
}
