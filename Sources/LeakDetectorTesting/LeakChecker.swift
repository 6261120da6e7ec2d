import Foundation
import HeapGraph
import LeakDetector

/// The MLeaksFinder analogue: decides which objects outlived a test and explains why.
///
/// Two modes: objects a test watches one by one (`trackForLeaks`), or everything the allocation
/// tracker saw allocated in a generation. Either way it waits out the grace period (draining the
/// main run loop), captures the live heap once (the tracker's objects and the survivors, with
/// what holds them from outside), analyses it once with the same ``HeapAnalysis`` as
/// `leak-detector`, and reports for each survivor the retain cycles it is part of, or the
/// shortest chain of strong references that holds it, and where it was allocated. In generation
/// mode only the top-most leaked objects are reported: an object held by another leaked object
/// is part of that leak (MLeaksFinder's parent suppression).
struct LeakChecker {
  /// An object a test asked to check, held weakly.
  struct WatchedObject: @unchecked Sendable {
    weak var object: AnyObject?
    var address: UInt
    var typeName: String
    var file: String
    var line: Int
  }

  var configuration: LeakCheckConfiguration

  /// Watched objects still alive after the grace period.
  func check(_ watched: [WatchedObject]) -> [LeakFinding] {
    guard configuration.isEnabled, !watched.isEmpty else { return [] }
    waitForGracePeriod { watched.allSatisfy { $0.object == nil } }
    var findings = captureAndExplain(watched: watched.filter { !configuration.isAllowed(type: $0.typeName) })
    // The capture held the survivors; one that is gone now was only slow.
    let gone = Set(watched.filter { $0.object == nil }.map(\.address))
    for index in findings.indices where gone.contains(findings[index].address) { findings[index].kind = .deallocatedLate }
    return findings
  }

  /// The top-most survivors among the objects allocated in `generation`, but those whose
  /// allocation stack names a test other than `runningTest` (a Swift Testing test's name and the
  /// name of its file), which ran in parallel with it: they are that test's.
  func check(generation: Int, runningTest: (name: String, fileName: String)? = nil) -> [LeakFinding] {
    guard configuration.isEnabled else { return [] }
    // A task the test framework's own code made meanwhile (the runner starting another test) is
    // not the test's; each creation stack is read once, not at every poll of the grace period.
    var isFrameworkStack: [UInt32: Bool] = [:]
    func isTestsTask(stack: UInt32) -> Bool {
      if let known = isFrameworkStack[stack] { return !known }
      let isFramework = TestAttribution.isTestFrameworkCode(AllocationTracker.allocationStack(ofStack: stack))
      isFrameworkStack[stack] = isFramework
      return !isFramework
    }
    func hasSurvivors() -> Bool {
      AllocationTracker.liveObjects(inGeneration: generation).contains { !configuration.isAllowed(type: $0.typeName) }
        || AllocationTracker.unfinishedTaskStacks(inGeneration: generation).contains(where: isTestsTask(stack:))
    }
    guard hasSurvivors() else { return [] }
    waitForGracePeriod { !hasSurvivors() }
    let heap = AllocationTracker.captureLiveHeap(limits: configuration.captureLimits, rootRegions: RootRegion.globalData())
    if let failure = heap.failure {
      return AllocationTracker.liveObjects(inGeneration: generation).filter { !configuration.isAllowed(type: $0.typeName) }.map {
        unexplained(typeName: $0.typeName, address: $0.address, trackedAt: nil, allocationSite: $0.allocationStack.allocationSite, failure)
      }
    }
    let graph = ObjectGraph(heap.snapshot)
    let candidates = graph.nodes.filter { node in
      guard graph.generation(of: node) == generation, !configuration.isAllowed(type: graph.typeName(of: node)) else { return false }
      let frames = graph.allocationStack(of: node)?.frames ?? []
      if graph.kind(of: node) == .task && TestAttribution.isTestFrameworkCode(frames) { return false }
      return !(runningTest.map { TestAttribution.isAnotherTest(allocating: frames, than: $0.name, in: $0.fileName) } ?? false)
    }
    var findings = explain(candidates: candidates.map { ($0, nil) }, in: graph, suppressingHeldCandidates: true)
    let stillAlive = Set(AllocationTracker.liveObjects(inGeneration: generation).map(\.address))
    for index in findings.indices where !stillAlive.contains(findings[index].address) && !findings[index].isTask {
      findings[index].kind = .deallocatedLate
    }
    return findings
  }

  // MARK: - Steps

  /// Captures the live heap with the watched objects that are still alive (held only for the
  /// capture) and explains each.
  private func captureAndExplain(watched: [WatchedObject]) -> [LeakFinding] {
    var survivors: [WatchedObject] = []
    var objects: [AnyObject] = []  // the capture counts these retains as the caller's
    for entry in watched {
      guard let object = entry.object else { continue }
      survivors.append(entry)
      objects.append(object)
    }
    guard !objects.isEmpty else { return [] }
    let heap = AllocationTracker.captureLiveHeap(
      including: objects, limits: configuration.captureLimits, rootRegions: RootRegion.globalData())
    if let failure = heap.failure {
      return survivors.map {
        unexplained(typeName: $0.typeName, address: $0.address, trackedAt: ($0.file, $0.line), allocationSite: nil, failure)
      }
    }
    let graph = ObjectGraph(heap.snapshot)
    let candidates = survivors.compactMap { entry in
      heap.objectIDs[entry.address].flatMap(graph.node(forObjectID:)).map { ($0, (entry.file, entry.line)) }
    }
    return explain(candidates: candidates, in: graph, suppressingHeldCandidates: false)
  }

  /// One analysis of `graph` with `candidates` expected dead, and a finding for each candidate
  /// (or each top-most one) that the configuration does not allow.
  private func explain(
    candidates: [(node: Int, trackedAt: (file: String, line: Int)?)], in graph: ObjectGraph, suppressingHeldCandidates: Bool
  ) -> [LeakFinding] {
    guard !candidates.isEmpty else { return [] }
    let nodes = candidates.map(\.node)
    // The capture's roots are complete: every object its reference counts say something outside
    // the captured objects holds is a root, so what no root reaches is held only by captured
    // objects that leaked with it (a task that nothing can resume, what its closure captured).
    let analysis = HeapAnalysis(
      graph: graph, options: .init(cycles: .init(maxCycleLength: configuration.maxCycleLength), rootsAreComplete: true),
      startNodes: nodes)
    var cyclesByObject: [Int64: [RetainCycle]] = [:]
    for cycle in analysis.cycles.cycles {
      for element in Set(cycle.elements.map(\.objectID)) { cyclesByObject[element, default: []].append(cycle) }
    }
    let reported = suppressingHeldCandidates ? Set(graph.topMostNodes(of: nodes)) : Set(nodes)
    // The retaining paths of the reported objects in no cycle, in one search for all of them.
    let pathNodes = nodes.filter { reported.contains($0) && cyclesByObject[graph.objectID(of: $0)] == nil }
    let paths = Dictionary(zip(pathNodes, analysis.retainingPaths(to: pathNodes)), uniquingKeysWith: { first, _ in first })
    var reportedCycles: Set<RetainCycle> = []
    var findings: [LeakFinding] = []
    for (node, trackedAt) in candidates where reported.contains(node) {
      let cycles = cyclesByObject[graph.objectID(of: node)] ?? []
      let path = cycles.isEmpty ? paths[node] : nil
      if isAllowed(cycles: cycles, path: path) { continue }
      // One report per cycle: the other members of a reported cycle are the same leak.
      if suppressingHeldCandidates, cycles.contains(where: reportedCycles.contains) { continue }
      reportedCycles.formUnion(cycles)
      let typeName = graph.typeName(of: node)
      let isTask = graph.kind(of: node) == .task
      let pathOrigin = isTask ? node : path?.steps.first.flatMap { graph.node(forObjectID: $0.objectID) }
      let waitingTask = pathOrigin.flatMap { WaitingTask(task: $0, in: graph) }
      if isTask, waitingTask.map(configuration.isAllowed) ?? false { continue }
      findings.append(
        LeakFinding(
          kind: configuration.isKnownLeak(type: typeName) ? .knownLeak : .leaked, typeName: typeName,
          address: UInt(graph.address(of: node) ?? 0), trackedAt: trackedAt,
          allocationSite: graph.allocationStack(of: node)?.frames.allocationSite, cycles: cycles, retainingPath: path,
          gracePeriod: configuration.gracePeriod, waitingTask: waitingTask, isTask: isTask,
          keptAlive: isTask ? WaitingTask.keptAlive(byTask: node, in: analysis) : [:]))
    }
    return findings
  }

  /// A survivor the capture could not explain: it is alive after the grace period, so it is
  /// reported all the same, with why nothing more is known.
  private func unexplained(
    typeName: String, address: UInt, trackedAt: (file: String, line: Int)?, allocationSite: StackFrame?, _ failure: CaptureFailure
  ) -> LeakFinding {
    LeakFinding(
      kind: configuration.isKnownLeak(type: typeName) ? .knownLeak : .leaked, typeName: typeName, address: address,
      trackedAt: trackedAt, allocationSite: allocationSite, cycles: [], retainingPath: nil, gracePeriod: configuration.gracePeriod,
      captureFailure: failure)
  }

  /// Drains the main run loop (or sleeps, off the main thread) until `isDone` or the grace period ends.
  private func waitForGracePeriod(until isDone: () -> Bool) {
    let deadline = ContinuousClock.now + configuration.gracePeriod
    while !isDone() && ContinuousClock.now < deadline {
      if Thread.isMainThread {
        _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.01))
      } else {
        usleep(5_000)
      }
    }
  }

  /// Whether an allowed reference (`Type.label`) is on one of the cycles or on the path.
  private func isAllowed(cycles: [RetainCycle], path: RetainingPath?) -> Bool {
    guard !configuration.allowedReferences.isEmpty else { return false }
    let pathSteps = (path?.steps.dropLast() ?? []).map { $0.typeName + "." + ($0.reference ?? "") }
    let steps = pathSteps + cycles.flatMap { cycle in cycle.elements.map { $0.typeName + "." + ($0.reference ?? "") } }
    return steps.contains { configuration.isAllowed(step: $0) }
  }
}
