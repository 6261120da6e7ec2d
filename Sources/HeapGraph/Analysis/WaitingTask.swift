/// What a report says of a task that waits: the function and line it waits at (its
/// ``SuspensionPoint``), what holds the continuation that can resume it, and where it was made.
///
/// ```text
/// Task (created at countAStream(into:finishing:) (Snippets.swift:212)) waits in closure #1 in countAStream(into:finishing:) (Snippets.swift:212);
/// only AsyncStream<Int>._Storage<>.state.continuations[0].context can resume it
/// ```
public struct WaitingTask: Sendable, Hashable {
  /// The function it waits in, as people read it (`closure #1 in App.Worker.start()`).
  public var waitsIn: String
  /// Where in that function: the first frame of its async backtrace.
  public var waitsAt: StackFrame?
  /// The references to the task from objects other than the ones its own frames and closure
  /// reach first: the continuations (and task handles) that can resume or await it, as
  /// `Type.label`.
  public var heldBy: [String]
  /// Where it was made: its creation stack's site when the tracker recorded one, else where its
  /// closure is written.
  public var createdAt: StackFrame?
  /// The closure it runs (`closure #1 in App.Server.run()`), when the snapshot has it.
  public var runs: [String]
  /// Whether child tasks of its (a task group's, an `async let`'s) have not completed: it waits
  /// for them too.
  public var hasChildTasks: Bool
  /// The actor whose queue it waits in, behind the actor's other work, when it does.
  public var queuedOnActor: String?

  /// The label of a child task's edge to its parent.
  public static let parentLabel = "parent task"
  /// The label of a task's edge to the actor whose queue it waits in.
  public static let queuedOnActorLabel = "queued on actor"

  /// The task `node` of `graph`, when it waits (it links to a suspension point); `nil` otherwise.
  public init?(task node: Int, in graph: ObjectGraph) {
    guard let suspension = Self.suspensionPoint(ofTask: node, in: graph) else { return nil }
    waitsIn = String(graph.typeName(of: suspension).dropFirst(SuspensionPoint.typeNamePrefix.count))
    waitsAt = graph.allocationStack(of: suspension)?.frames.first
    createdAt = graph.allocationStack(of: node)?.frames.allocationSite
    runs = graph.strongReferences(of: node).filter { $0.label == "closure" }.map { graph.typeName(of: $0.target) }
    queuedOnActor = graph.strongReferences(of: node).first { $0.label == Self.queuedOnActorLabel }.map { graph.typeName(of: $0.target) }
    let referrers = graph.nodes.flatMap { source in
      graph.strongReferences(of: source).filter { $0.target == node }.map { (source: source, label: $0.label ?? "?") }
    }
    hasChildTasks = referrers.contains { graph.kind(of: $0.source) == .task && $0.label == Self.parentLabel }
    heldBy = referrers.filter { !(graph.kind(of: $0.source) == .task && $0.label == Self.parentLabel) }
      .map { "\(graph.typeName(of: $0.source)).\($0.label)" }.sorted()
  }

  /// The node where the task `node` of `graph` waits (its ``SuspensionPoint``), or `nil` for a
  /// task that does not wait and for any other object.
  static func suspensionPoint(ofTask node: Int, in graph: ObjectGraph) -> Int? {
    guard graph.kind(of: node) == .task else { return nil }
    return graph.strongReferences(of: node).first(where: { $0.label == SuspensionPoint.taskEdgeLabel })?.target
  }

  /// How a leak group names a leaked task that is in no cycle, by where it waits, or `nil` when
  /// `node` is no task that waits: two tasks that wait in different functions are different
  /// leaks (a task that waits on a continuation nothing holds).
  ///
  /// ```text
  /// Task.suspended → await in closure #1 in dropUnsafeContinuation()
  /// ```
  static func leakSummary(ofTask node: Int, in graph: ObjectGraph) -> String? {
    leakLinks(ofTask: node, in: graph).map { links in
      links.map { $0.typeName + ($0.reference.map { "." + $0 } ?? "") }.joined(separator: " → ")
    }
  }

  /// The links of ``leakSummary(ofTask:in:)``: the task, by its edge to where it waits, then
  /// where it waits.
  static func leakLinks(ofTask node: Int, in graph: ObjectGraph) -> [HeapFinding.Link]? {
    suspensionPoint(ofTask: node, in: graph).map { suspension in
      [
        HeapFinding.Link(typeName: graph.typeName(of: node), reference: SuspensionPoint.taskEdgeLabel),
        HeapFinding.Link(typeName: graph.typeName(of: suspension), reference: nil),
      ]
    }
  }

  /// The types of the leaked objects the task `node` keeps alive (what its closure captured and
  /// its frames hold, through objects no root reaches), with their counts; empty for a task a
  /// root reaches. Closure values and where the task waits are no allocations, and not counted.
  ///
  /// ```text
  /// ["LeakTestSupport.ContinuationPayload": 1, "closure #1 in LeakTestSupport.startTask…()": 1]
  /// ```
  package static func keptAlive(byTask node: Int, in analysis: HeapAnalysis) -> [String: Int] {
    LeakedObjectTypes.counts(keptAliveBy: [node], graph: analysis.graph, tree: analysis.shortestPaths)
  }
}
