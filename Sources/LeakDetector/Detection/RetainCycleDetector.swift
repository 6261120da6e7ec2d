import CLeakRuntime
import HeapGraph

/// Finds the retain cycles among live objects: the FBRetainCycleDetector analogue for Swift.
///
/// Add candidates, then ask for cycles. The detector walks the strong references reachable from
/// the candidates (read from the Swift runtime's reflection metadata, plus associations and
/// declared references), builds a heap graph, and runs the same search as `leak-detector
/// analyze`: every elementary cycle up to `maxLength` objects, each once, canonically rotated.
/// The heap is read in a capture child forked from this process (``CaptureLimits``), so the
/// cycles are those of one instant, other threads keep running, and nothing the search does can
/// retain, release or crash this process's objects.
///
/// ```swift
/// let detector = RetainCycleDetector()
/// detector.addCandidate(feed)
/// for cycle in detector.findRetainCycles() { print(cycle) }
/// ```
/// ```text
/// MyApp.Feed.onUpdate -> closure #1 in MyApp.Feed.load().capture #0: Feed -> MyApp.Feed
/// ```
public final class RetainCycleDetector {
  /// Decides whether to ignore an edge: `(source type, label, target type)`, `true` to drop it.
  public typealias EdgeFilter = @Sendable (_ sourceType: String, _ label: String, _ targetType: String) -> Bool
  /// Declares references of objects whose types the caller does not own.
  public typealias ReferenceProvider = (_ object: AnyObject) -> [DeclaredReference]

  /// How the detector searches.
  public struct Configuration {
    /// Edges to ignore, e.g. known long-lived caches.
    public var edgeFilters: [EdgeFilter] = []
    /// How many cycles to list per strongly connected component; the rest are counted.
    public var maxCyclesPerComponent = CycleFinder.Configuration.defaultMaxCyclesPerComponent
    /// Treat `unowned` references as edges too, labelled `… (unowned)`: cycles through them are
    /// not leaks, but they crash when the owner dies first, so they are worth a look.
    public var includesUnownedReferencesAsSuspicious = false
    /// Extra references for objects of types the runtime cannot describe.
    public var referenceProviders: [ReferenceProvider] = []
    /// The most objects one search reads; beyond it the search stops with a diagnostic.
    public var maxObjects = 1_000_000
    /// The time bounds and attempts of the capture child that reads the heap.
    public var captureLimits = CaptureLimits()

    public init() {}
  }

  public var configuration: Configuration
  private var candidates: [WeakReference] = []
  /// What the last search could not read (types without metadata, unreadable storage), where it
  /// stopped early, and capture attempts that failed (a crashed or stalled capture child): the
  /// diagnostics of ``lastSnapshot``, each with its kind and the fields it is about, its
  /// sentence as its `message` (and its `description`).
  ///
  /// ```text
  /// the search stopped after 3 objects (Configuration.maxObjects)
  /// ```
  public private(set) var diagnostics: [CaptureDiagnostic] = []
  /// The graph of the last search, as a heap snapshot (for reports and `leak-detector`).
  public private(set) var lastSnapshot: HeapSnapshot?

  public init(configuration: Configuration = Configuration()) {
    self.configuration = configuration
  }

  /// Adds an object whose reachable cycles to report. The detector holds it weakly.
  public func addCandidate(_ object: AnyObject) {
    candidates.append(WeakReference(object))
  }

  /// Every retain cycle reachable from the candidates, of at most `maxLength` objects.
  public func findRetainCycles(maxLength: Int = CycleFinder.Configuration.defaultMaxCycleLength) -> [RetainCycle] {
    findRetainCycleReport(maxLength: maxLength).cycles
  }

  /// The full report of the search: cycles grouped by component, with counts of unlisted ones.
  public func findRetainCycleReport(maxLength: Int = CycleFinder.Configuration.defaultMaxCycleLength) -> CycleReport {
    let roots = candidates.compactMap(\.object)
    let addresses = roots.map { UInt(bitPattern: Unmanaged.passUnretained($0).toOpaque()) }
    let metadata = HeapSnapshot.Metadata(tool: "swift-leak-detector RetainCycleDetector")
    let (heap, snapshot, _) = withExtendedLifetime(roots) {
      CapturedHeap.inChildProcess(limits: configuration.captureLimits, metadata: metadata) { progress in
        var walk = HeapWalk(configuration: configuration, progress: progress, metadata: metadata)
        for address in addresses { walk.addStart(address: address) }
        let walked = walk.run()
        return walked.resolved(retainedByCaller: addresses.reduce(into: [:]) { $0[$1, default: 0] += Self.retainsHeldPerCandidate })
      }
    }
    diagnostics = snapshot.metadata.diagnosticRecords
    lastSnapshot = snapshot
    let graph = ObjectGraph(snapshot)
    let startNodes = heap.startIDs.compactMap { graph.node(forObjectID: $0) }
    let finder = CycleFinder(
      configuration: .init(maxCycleLength: maxLength, maxCyclesPerComponent: configuration.maxCyclesPerComponent))
    return finder.findCycles(in: graph, from: startNodes)
  }

  /// The retains of each candidate that the search and its caller hold while it runs: one by
  /// the array of candidates that keeps them alive for the capture, and, as a rule, one by the
  /// caller's own variable. A conservative reference into a candidate (a word of a task's async
  /// frame) counts only when the candidate's reference count has a retain beyond these; a
  /// candidate the caller does not hold can only lose such a reference, never gain a cycle.
  private static let retainsHeldPerCandidate = 2

  /// The retain cycles reachable from `object`.
  public static func cycles(from object: AnyObject, maxLength: Int = CycleFinder.Configuration.defaultMaxCycleLength) -> [RetainCycle] {
    let detector = RetainCycleDetector()
    detector.addCandidate(object)
    return detector.findRetainCycles(maxLength: maxLength)
  }
}
