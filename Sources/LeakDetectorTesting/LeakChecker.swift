import Foundation
import HeapGraph
import LeakDetector

/// The MLeaksFinder analogue: decides which objects outlived a test and explains why.
///
/// Two modes: objects registered one by one (`trackForLeaks`), or everything the allocation
/// tracker saw allocated in a generation. Either way it waits out the grace period (draining the
/// main run loop), then for each survivor reports the retain cycles it is part of, or the chain
/// of strong references that holds it, and where it was allocated. In generation mode only the
/// top-most leaked objects are reported: an object held by another leaked object is part of that
/// leak (MLeaksFinder's parent suppression).
struct LeakChecker {
  /// An object registered for checking, held weakly.
  struct TrackedEntry: @unchecked Sendable {
    weak var object: AnyObject?
    var address: UInt
    var typeName: String
    var file: String
    var line: Int
  }

  var configuration: LeakCheckConfiguration

  /// Survivors of explicitly tracked objects.
  func check(_ entries: [TrackedEntry]) -> [LeakFinding] {
    guard configuration.isEnabled, !entries.isEmpty else { return [] }
    waitForGracePeriod { entries.allSatisfy { $0.object == nil } }
    var findings: [LeakFinding] = []
    var owners: OwnerIndex?
    for entry in entries {
      guard let object = entry.object else { continue }
      let typeName = entry.typeName
      if configuration.isAllowed(type: typeName) { continue }
      let cycles = cyclesThrough(object)
      var path: [String] = []
      if cycles.isEmpty {
        if owners == nil { owners = OwnerIndex(snapshot: AllocationTracker.isRunning ? AllocationTracker.snapshot() : nil) }
        path = owners?.retainingPath(to: entry.address) ?? []
      }
      if isAllowed(cycles: cycles, path: path) { continue }
      var finding = LeakFinding(
        kind: configuration.isKnownLeak(type: typeName) ? .knownLeak : .leaked, typeName: typeName, address: entry.address,
        trackedAt: (entry.file, entry.line), allocationSite: allocationSite(of: entry.address), cycles: cycles,
        retainingPath: path, gracePeriod: configuration.gracePeriod)
      withExtendedLifetime(object) {}
      if entry.object == nil { finding.kind = .deallocatedLate }
      findings.append(finding)
    }
    return findings
  }

  /// The top-most survivors among the objects allocated in `generation`.
  func check(generation: Int) -> [LeakFinding] {
    guard configuration.isEnabled else { return [] }
    func survivors() -> [TrackedObject] {
      AllocationTracker.liveObjects(inGeneration: generation).filter { !configuration.isAllowed(type: $0.typeName) }
    }
    var candidates = survivors()
    if candidates.isEmpty { return [] }
    waitForGracePeriod { survivors().isEmpty }
    candidates = survivors()
    if candidates.isEmpty { return [] }

    let snapshot = AllocationTracker.snapshot(inGeneration: generation)
    let graph = ObjectGraph(snapshot)
    let owners = OwnerIndex(snapshot: AllocationTracker.snapshot())
    let nodes = candidates.compactMap { candidate in
      graph.nodes.first { graph.address(of: $0) == UInt64(candidate.address) }.map { (candidate, $0) }
    }
    let reach = Dictionary(uniqueKeysWithValues: nodes.map { ($0.1, reachable(from: $0.1, in: graph)) })
    var findings: [LeakFinding] = []
    for (candidate, node) in nodes {
      // Parent suppression: skip objects that another leaked object holds (and that do not hold it back).
      let heldByAnotherLeak = nodes.contains { other in
        other.1 != node && reach[other.1]?.contains(node) == true && reach[node]?.contains(other.1) != true
      }
      if heldByAnotherLeak { continue }
      let cycles = CycleFinder(configuration: .init(maxCycleLength: configuration.maxCycleLength))
        .findCycles(in: graph, from: [node]).cycles
        .filter { cycle in cycle.elements.contains { $0.address == UInt64(candidate.address) } }
      let path = cycles.isEmpty ? owners.retainingPath(to: candidate.address) : []
      if isAllowed(cycles: cycles, path: path) { continue }
      // One report per cycle: the other members of a reported cycle are the same leak.
      if cycles.contains(where: { cycle in findings.contains { $0.cycles.contains(cycle) } }) { continue }
      findings.append(
        LeakFinding(
          kind: configuration.isKnownLeak(type: candidate.typeName) ? .knownLeak : .leaked, typeName: candidate.typeName,
          address: candidate.address, trackedAt: nil, allocationSite: candidate.allocationStack.allocationSite, cycles: cycles,
          retainingPath: path, gracePeriod: configuration.gracePeriod))
    }
    let stillAlive = Set(AllocationTracker.liveObjects(inGeneration: generation).map(\.address))
    for index in findings.indices where !stillAlive.contains(findings[index].address) {
      findings[index].kind = .deallocatedLate
    }
    return findings
  }

  // MARK: - Steps

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

  private func cyclesThrough(_ object: AnyObject) -> [RetainCycle] {
    let address = UInt64(UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque()))
    return RetainCycleDetector.cycles(from: object, maxLength: configuration.maxCycleLength)
      .filter { cycle in cycle.elements.contains { $0.address == address } }
  }

  private func allocationSite(of address: UInt) -> StackFrame? {
    guard AllocationTracker.isRunning else { return nil }
    return AllocationTracker.liveObjects().first { $0.address == address }?.allocationStack.allocationSite
  }

  private func isAllowed(cycles: [RetainCycle], path: [String]) -> Bool {
    guard !configuration.allowedReferences.isEmpty else { return false }
    let steps = path + cycles.flatMap { cycle in cycle.elements.map { $0.typeName + "." + ($0.reference ?? "") } }
    return steps.contains { configuration.isAllowed(step: $0) }
  }

  private func reachable(from node: Int, in graph: ObjectGraph) -> Set<Int> {
    var seen: Set<Int> = []
    var queue = [node]
    while let next = queue.popLast() {
      for reference in graph.strongReferences(of: next) where seen.insert(reference.target).inserted {
        queue.append(reference.target)
      }
    }
    return seen
  }
}

/// Who strongly references whom, to explain objects that no cycle holds.
struct OwnerIndex {
  private let graph: ObjectGraph?
  private var referrers: [Int: [(source: Int, label: String?)]] = [:]

  init(snapshot: HeapSnapshot?) {
    graph = snapshot.map(ObjectGraph.init)
    guard let graph else { return }
    for node in graph.nodes {
      for reference in graph.strongReferences(of: node) {
        referrers[reference.target, default: []].append((node, reference.label))
      }
    }
  }

  /// The shortest chain of strong references from an object nothing else holds (within the
  /// tracker's knowledge) to the object at `address`, as `Type.label` steps.
  func retainingPath(to address: UInt) -> [String] {
    guard let graph, let target = graph.nodes.first(where: { graph.address(of: $0) == UInt64(address) }) else { return [] }
    var previous: [Int: (source: Int, label: String?)] = [:]
    var queue = [target]
    var head = 0
    var top = target
    while head < queue.count {
      let node = queue[head]
      head += 1
      let holders = referrers[node] ?? []
      if holders.isEmpty && node != target {
        top = node
        break
      }
      for holder in holders where previous[holder.source] == nil && holder.source != target {
        previous[holder.source] = (node, holder.label)
        queue.append(holder.source)
        top = holder.source
      }
    }
    var steps: [String] = []
    var node = top
    while node != target, let step = previous[node] {
      steps.append(graph.typeName(of: node) + "." + (step.label ?? "?"))
      node = step.source
    }
    return steps
  }
}
