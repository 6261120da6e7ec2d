import HeapGraph
import LeakDetector
import XCTest

/// One heap-growth check: snapshots of the live heap before the first measured iteration of a
/// scenario and after each, compared by ``HeapGrowth``. The sync and async entry points run the
/// scenario between the calls.
///
/// The allocation tracker runs for the check (started, with allocation stacks as the
/// configuration says, if it is not running, and stopped at the end); a check that started it
/// marks a generation per iteration, one inside another check (`.detectsLeaks`, ``LeakTestCase``,
/// `withLeakChecking`) leaves the generation alone, so that the enclosing check still sees
/// everything the test made. Each snapshot is the
/// tracker's live objects and what they reference, with the program's global data scanned so
/// that a global is named by its variable; nothing is analysed until the last snapshot is taken,
/// so that the check's own work is not in the heap it measures.
struct HeapGrowthCheck {
  let configuration: LeakCheckConfiguration
  /// Snapshots taken so far, the first before the first measured iteration.
  private var snapshots: [HeapSnapshot] = []
  /// Why a capture failed, if one did.
  private var captureFailure: CaptureFailure?
  private let startedTracker: Bool

  /// Begins a check, or returns `nil` when checks are disabled.
  init?(configuration: LeakCheckConfiguration) {
    guard configuration.isEnabled else { return nil }
    self.configuration = configuration
    startedTracker = !AllocationTracker.isRunning
    if startedTracker { AllocationTracker.start(.init(capturesStacks: configuration.capturesAllocationStacks)) }
  }

  /// Ends an iteration (or the warm-up): a new generation if the tracker is this check's, so
  /// that what comes next is told apart, and a snapshot.
  mutating func snapshot() {
    if startedTracker { AllocationTracker.markGeneration() }
    guard captureFailure == nil else { return }
    let heap = AllocationTracker.captureLiveHeap(limits: configuration.captureLimits, rootRegions: RootRegion.globalData())
    if let failure = heap.failure { captureFailure = failure }
    snapshots.append(heap.snapshot)
  }

  /// Reports what grew in every iteration at `location`, then stops the tracker if this check
  /// started it.
  func finish(location: (file: String, line: Int), xcTestLocation: (file: StaticString, line: UInt)?) {
    cancel()
    for finding in findings() {
      LeakReporting.report(finding, file: location.file, line: location.line, testCase: nil, xcTestLocation: xcTestLocation)
    }
  }

  /// Stops the tracker if this check started it, without reporting (the scenario threw).
  func cancel() {
    if startedTracker { AllocationTracker.stop() }
  }

  /// What grew in every iteration and is not allowed by the configuration, or why it could not
  /// be known.
  func findings() -> [LeakFinding] {
    if let captureFailure {
      return [
        LeakFinding(
          kind: .grew, typeName: "", address: 0, trackedAt: nil, allocationSite: nil, cycles: [], retainingPath: nil,
          gracePeriod: configuration.gracePeriod, captureFailure: captureFailure)
      ]
    }
    let options = HeapAnalysis.Options(cycles: .init(maxCycleLength: configuration.maxCycleLength))
    let growth = HeapGrowth(tallies: snapshots.map { HeapTally(analysis: HeapAnalysis(graph: ObjectGraph($0), options: options)) })
    return growth.findings.filter { !isAllowed($0) }.map { finding in
      LeakFinding(
        kind: configuration.isKnownLeak(type: finding.links.last?.typeName ?? "") ? .knownLeak : .grew,
        typeName: finding.links.last?.typeName ?? "", address: 0, trackedAt: nil, allocationSite: finding.addedAt.first?.site,
        cycles: [], retainingPath: nil, gracePeriod: configuration.gracePeriod, growth: finding)
    }
  }

  /// Whether the configuration allows `finding`: a reference on its path is allowed, or every
  /// type on it is, and its root is not a variable of a module whose types are not (the test
  /// framework's own bookkeeping, not the scenario's).
  private func isAllowed(_ finding: HeapGrowth.Finding) -> Bool {
    let steps = finding.links.map { $0.typeName + "." + ($0.reference ?? "") }
    if steps.contains(where: configuration.isAllowed(step:)) { return true }
    let globalPrefix = RootKind.global.rawValue + " "
    let global = finding.origin.flatMap { $0.hasPrefix(globalPrefix) ? String($0.dropFirst(globalPrefix.count)) : nil }
    return (finding.links.map(\.typeName) + [global].compactMap { $0 }).allSatisfy(configuration.isAllowed(type:))
  }
}

/// Runs `scenario` `warmUp` times, then `iterations` times, and fails when something it keeps
/// grew in every iteration: objects reached along one retaining path (collection subscripts
/// collapsed: `log[*]`), or leaked objects of one kind. Usable in XCTest and Swift Testing.
///
/// A snapshot of the live heap is taken before the first measured iteration and after each, so
/// each iteration is one step. What a warm-up makes once (a lazily created singleton), a cache
/// that is full before the last iteration and transient work do not grow in every step and
/// pass; warm up at least as many times as the scenario's caches hold entries, or a cache that
/// fills during the iterations grows in each of them. The failure, at the line of the call,
/// names the path from its root, the counts per snapshot and the line that allocated what was
/// added:
///
/// ```swift
/// expectNoHeapGrowth(iterations: 5) { FeedServer.shared.handle(path: "/feed") }
/// ```
/// ```text
/// Heap growth: MyApp.FeedResponse grew in every iteration: 2 -> 3 -> 4 -> 5 -> 6 -> 7 objects (+1 per iteration, +40 bytes per iteration).
/// They are retained through:
///   global MyApp.FeedServer.shared: FeedServer.log[*] → FeedResponse
///   growing: FeedServer.log[*]
/// They were allocated at FeedServer.handle(path:) (FeedServer.swift:12): 5 objects.
/// ```
///
/// - Parameters:
///   - iterations: the measured iterations, at least 2.
///   - warmUp: iterations run first, not measured.
///   - configuration: the allowed types and references, the capture's limits.
///   - file: the file the failure is reported in (the caller's).
///   - line: the line the failure is reported at (the caller's).
///   - scenario: the work that should leave nothing new behind once warmed up.
@_disfavoredOverload  // in async code, the async form is chosen even for a scenario that does not await
public func expectNoHeapGrowth(
  iterations: Int = 5, warmUp: Int = 2, configuration: LeakCheckConfiguration = LeakCheckConfiguration(),
  file: StaticString = #filePath, line: UInt = #line, _ scenario: () throws -> Void
) rethrows {
  precondition(
    iterations >= 2, "expectNoHeapGrowth needs at least 2 iterations to tell growth from a one-time change; got \(iterations)")
  guard var check = HeapGrowthCheck(configuration: configuration) else { return }
  do {
    for _ in 0..<warmUp { try scenario() }
    check.snapshot()
    for _ in 0..<iterations {
      try scenario()
      check.snapshot()
    }
  } catch {
    check.cancel()
    throw error
  }
  check.finish(location: ("\(file)", Int(line)), xcTestLocation: (file, line))
}

/// The async form of `expectNoHeapGrowth(iterations:warmUp:configuration:file:line:_:)`.
///
/// Outside a `.detectsLeaks` test it waits for the leak checks of other tests to end, and they
/// wait for it, since the allocation tracker is the whole process's. Async code calls this form,
/// whether or not its scenario awaits; in Swift Testing, where tests run in parallel, call it
/// from an async test.
public func expectNoHeapGrowth(
  iterations: Int = 5, warmUp: Int = 2, configuration: LeakCheckConfiguration = LeakCheckConfiguration(),
  file: StaticString = #filePath, line: UInt = #line, _ scenario: () async throws -> Void
) async rethrows {
  precondition(
    iterations >= 2, "expectNoHeapGrowth needs at least 2 iterations to tell growth from a one-time change; got \(iterations)")
  try await LeakCheckSerializer.shared.exclusively(if: configuration.isEnabled) {
    guard var check = HeapGrowthCheck(configuration: configuration) else { return }
    do {
      for _ in 0..<warmUp { try await scenario() }
      check.snapshot()
      for _ in 0..<iterations {
        try await scenario()
        check.snapshot()
      }
    } catch {
      check.cancel()
      throw error
    }
    check.finish(location: ("\(file)", Int(line)), xcTestLocation: (file, line))
  }
}
