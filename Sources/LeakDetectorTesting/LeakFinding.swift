import HeapGraph

/// One object that outlived its test, with what keeps it alive.
///
/// ```text
/// LeakDetectorTestingTests.LeakyViewModel (0x…) is still alive 0.02 s after the test.
/// It is held by a retain cycle (1 object):
///   LeakyViewModel.onUpdate → closure #1 in LeakyViewModel.bindStrongly().capture #0: LeakyViewModel → LeakyViewModel
///   in short: LeakyViewModel.onUpdate → closure in LeakyViewModel.bindStrongly() → LeakyViewModel
///     - closure #1 in LeakyViewModel.bindStrongly() written at LeakFixtures.swift:N
/// Break one strong reference of the cycle (a [weak self] capture, a weak delegate, removing the handler when done).
/// ```
///
/// When no cycle holds it, the chain of references that does:
///
/// ```text
/// LeakDetectorTestingTests.LeakyViewModel (0x…) is still alive 0.02 s after the test.
/// No retain cycle holds it; it is retained through:
///   Coordinator.current → LeakyViewModel
///   where Coordinator is held by global LeakDetectorTestingTests.globalCache[0]
/// Release it from there when the test ends, or allow it (LeakCheckConfiguration.allowedReferences) if that is by design.
/// ```
public struct LeakFinding: Sendable, CustomStringConvertible {
  /// What was found.
  public enum Kind: Sendable, Hashable {
    /// Still alive after the grace period.
    case leaked
    /// Deallocated after the grace period, while the report was prepared: slow, not leaked.
    case deallocatedLate
    /// Still alive, but its type is declared as a known leak.
    case knownLeak
    /// Objects kept along one retaining path (or leaked objects of one kind) that grew in every
    /// iteration of `expectNoHeapGrowth(iterations:warmUp:configuration:file:line:_:)`: the
    /// finding's ``LeakFinding/growth``.
    case grew
  }

  public var kind: Kind
  /// The leaked object's type.
  public var typeName: String
  /// Its address.
  public var address: UInt
  /// Where the test registered it (`trackForLeaks`), if it did.
  public var trackedAt: (file: String, line: Int)?
  /// Where it was allocated, when stacks were captured.
  public var allocationSite: StackFrame?
  /// The retain cycles it is part of.
  public var cycles: [RetainCycle]
  /// When no cycle holds it: the shortest chain of strong references that leads to it, from
  /// what holds the first object, as far as the capture knows them.
  public var retainingPath: RetainingPath?
  /// The grace period that was waited.
  public var gracePeriod: Duration
  /// The task that holds it (the first object of ``retainingPath``), or the task it is, when that
  /// task waits: where, on what, and where it was made.
  public var waitingTask: WaitingTask? = nil
  /// Whether the object is a task that the test made and that has not completed (goleak's check:
  /// a task left waiting after the test).
  public var isTask = false
  /// For a task that is leaked (nothing outside the heap holds it, so nothing can resume it):
  /// the types of what it keeps alive, with their counts; empty otherwise.
  public var keptAlive: [String: Int] = [:]
  /// Why the heap could not be captured to explain the survivor (every capture attempt failed,
  /// or the runtime's layouts are not the ones this build reads); `nil` when it was.
  public var captureFailure: CaptureFailure? = nil
  /// What grew in every iteration, for a finding of `expectNoHeapGrowth(iterations:warmUp:configuration:file:line:_:)`
  /// (its ``typeName`` is that of the objects that grew, its ``allocationSite`` the line that
  /// added the most of them, its address 0); `nil` for the other checks.
  public var growth: HeapGrowth.Finding? = nil

  /// The report a person can act on. Names are written as people write them; the leaked type's
  /// module, named in the first line, is left out of the rest.
  public var description: String {
    let names = NameStyle.readable(homeModule: ReadableName.module(of: typeName))
    let seconds = Double(gracePeriod.components.seconds) + Double(gracePeriod.components.attoseconds) / 1e18
    if let growth { return (kind == .knownLeak ? "Known leak: " : "") + Self.describe(growth) }
    var text: String
    switch kind {
    case .deallocatedLate:
      return "\(typeName) (0x\(String(address, radix: 16))) was deallocated late: after the grace period of \(seconds) s, "
        + "but before the report. Not a leak; raise the grace period if that is expected."
    case .knownLeak:
      text = "Known leak: \(typeName) (0x\(String(address, radix: 16))) is still alive \(seconds) s after the test.\n"
    case .grew:
      return "The heap could not be captured to check what grows: \(captureFailure.map(String.init(describing:)) ?? "no snapshot")."
    case .leaked where isTask:
      text = "A task the test made (0x\(String(address, radix: 16))) has not completed \(seconds) s after the test.\n"
    case .leaked:
      text = "\(typeName) (0x\(String(address, radix: 16))) is still alive \(seconds) s after the test.\n"
    }
    if isTask, let waitingTask {
      let names = NameStyle.readable(
        forTypeNames: [waitingTask.waitsIn] + waitingTask.runs + [waitingTask.createdAt?.symbol].compactMap { $0 })
      return text + Self.describeLeftTask(waitingTask, path: retainingPath, keptAlive: keptAlive, names: names)
    } else if isTask {  // it runs: only its creation is known
      return text + (allocationSite.map { "It was made at \(names.frame($0)).\n" } ?? "")
        + "It is running now, on one of the program's threads.\n" + Self.endTheTask
    }
    if let allocationSite { text += "It was allocated at \(names.frame(allocationSite)).\n" }
    if !cycles.isEmpty {
      for cycle in cycles {
        // Closure values (a closure whose context is its one capture) are not allocations.
        let objects = cycle.elements.count { !($0.kind == .closureContext && $0.address == nil) }
        text += "It is held by a retain cycle (\(objects) object\(objects == 1 ? "" : "s")):\n"
        text += "  \(names.cycle(cycle))\n"
        if let short = names.shortForm(of: cycle) { text += "  in short: \(short)\n" }
        for element in cycle.elements {
          guard let site = element.allocationSite.allocationSite else { continue }
          let phrase = SitePhrase.of(kind: element.kind, typeName: element.typeName)
          if SitePhrase.isLocationOnly(kind: element.kind, typeName: element.typeName) {
            if let location = site.sourceLocation { text += "    - \(names.type(element.typeName)) \(phrase) \(location)\n" }
          } else {
            text += "    - \(names.type(element.typeName)) \(phrase) \(names.frame(site))\n"
          }
        }
      }
      text += "Break one strong reference of the cycle (a [weak self] capture, a weak delegate, removing the handler when done)."
    } else if let captureFailure {
      text += "The heap could not be captured to explain what holds it: \(captureFailure)."
    } else if let retainingPath, retainingPath.steps.count > 1 {
      text += "No retain cycle holds it; it is retained through:\n  " + names.chain(retainingPath.steps.map(\.link)) + "\n"
      let location = retainingPath.originSite?.sourceLocation.map { " (\($0))" } ?? ""
      text += "  where \(names.type(retainingPath.steps[0].typeName))\(location) \(Self.holder(of: retainingPath.origin))\n"
      if let waitingTask { text += Self.describe(waitingTask, leaked: retainingPath.origin == .leaked, names: names) }
      for step in retainingPath.steps.dropFirst() {
        let phrase = SitePhrase.of(kind: .closureContext, typeName: step.typeName)
        if let location = step.closureSite?.sourceLocation { text += "    - \(names.type(step.typeName)) \(phrase) \(location)\n" }
      }
      text +=
        waitingTask == nil
        ? "Release it from there when the test ends, or allow it (LeakCheckConfiguration.allowedReferences) if that is by design."
        : "End the task when the test ends: finish or resume what it waits on, or cancel it; or allow it (LeakCheckConfiguration.allowedReferences) if that is by design."
    } else if let retainingPath, case .root(let kind, _) = retainingPath.origin, kind != .external {
      text += "No retain cycle holds it: it \(Self.holder(of: retainingPath.origin)).\n"
      text += "Release it from there when the test ends, or allow it (LeakCheckConfiguration.allowedReferences) if that is by design."
    } else {
      text += "No retain cycle holds it and no tracked object refers to it: \(Self.unknownHolders) keeps it alive."
    }
    return text
  }

  /// What grew in every iteration, along which path, and which line added it.
  ///
  /// ```text
  /// LeakDetectorTestingTests.GrowthItem grew in every iteration: 2 -> 3 -> 4 -> 5 objects (+1 per iteration, +24 bytes per iteration).
  /// They are retained through:
  ///   global LeakDetectorTestingTests.growingItems[*]: GrowthItem
  /// They were allocated at appendGrowthItem() (HeapGrowthFixtures.swift:N): 3 objects.
  /// Release what an iteration adds once it is done with it, or bound what grows; allow the path (LeakCheckConfiguration.allowedReferences) if that is by design.
  /// ```
  static func describe(_ growth: HeapGrowth.Finding) -> String {
    let typeName = growth.links.last?.typeName ?? "?"
    let names = NameStyle.readable(forTypeNames: growth.links.map(\.typeName) + growth.holds.map(\.typeName))
    let noun = growth.kind == .path ? "objects" : "instances"
    var text =
      growth.growsInSize
      ? "\(typeName) grew in size in every iteration: \(growth.bytes.map(String.init).joined(separator: " -> ")) bytes "
        + "(\(HeapGrowth.perStep(growth.bytesPerStep)) per iteration), \(growth.counts.last ?? 0) \(noun) throughout.\n"
      : "\(typeName) grew in every iteration: \(growth.counts.map(String.init).joined(separator: " -> ")) \(noun) "
        + "(\(HeapGrowth.perStep(growth.countPerStep)) per iteration, \(HeapGrowth.perStep(growth.bytesPerStep)) bytes per iteration).\n"
    switch growth.kind {
    case .path:
      text += "They are retained through:\n  \(growth.origin ?? "root"): \(names.chain(growth.links))\n"
      if let growing = growth.growing {
        text +=
          "  growing: \(names.link(type: growing.typeName, reference: growing.reference))"
          + (growth.growsInSize ? " (its own size: values in the collections it owns)\n" : "\n")
      }
      if growth.origin == RootKind.external.rawValue {
        text +=
          "  where what holds the first object was not captured: an object made before the allocation tracker started, "
          + "a task, a thread's stack, or memory the tracker does not see\n"
      }
    case .leak:
      text += "They are leaked (nothing outside the heap holds them):\n  \(names.leak(growth.links, summary: growth.summary))\n"
    }
    if let holds = growth.holdsSummary(names: names) { text += "Each holds what grew with it: \(holds).\n" }
    for site in growth.addedAt {
      text += "They were allocated at \(names.frame(site.site)): \(site.count) object\(site.count == 1 ? "" : "s").\n"
    }
    text +=
      growth.kind == .path
      ? "Release what an iteration adds once it is done with it, or bound what grows; allow the path (LeakCheckConfiguration.allowedReferences) if that is by design."
      : "Break one strong reference of the cycle (a [weak self] capture, a weak delegate, removing the handler when done)."
    return text
  }

  /// Where a task waits, and what can resume it: the lines under the path's `where Task …`.
  ///
  /// ```text
  ///     - it waits in closure #1 in countAStream(into:finishing:) at HiddenOwnerSnippets.swift:N,
  ///       resumed only through AsyncStream<Int>._Storage<>.state.continuations[0].context, which the task itself reaches
  /// ```
  static func describe(_ task: WaitingTask, leaked: Bool, names: NameStyle) -> String {
    var text = "    - it " + waits(task, names: names)
    if let created = task.createdAt?.sourceLocation { text += ", made at \(created)" }
    return text + (resumption(of: task, leaked: leaked, names: names).map { ",\n      \($0)" } ?? "") + "\n"
  }

  /// Where `task` waits: `waits in closure #1 in Worker.run() at Worker.swift:14`, and for what.
  private static func waits(_ task: WaitingTask, names: NameStyle) -> String {
    var text = "waits in \(names.type(task.waitsIn))" + (task.waitsAt?.sourceLocation.map { " at \($0)" } ?? "")
    if task.hasChildTasks { text += ", for its child tasks to end" }
    if let actor = task.queuedOnActor { text += ", queued on actor \(names.type(actor)) behind its other work" }
    return text
  }

  /// What could resume `task` (`resumed through Storage.continuation`), when anything holds it;
  /// for a `leaked` task, that only the task itself reaches it.
  private static func resumption(of task: WaitingTask, leaked: Bool, names: NameStyle) -> String? {
    let holders = task.heldBy.map(names.type).joined(separator: ", ")
    if leaked {
      return holders.isEmpty
        ? "and nothing holds what could resume it: the task is leaked, with what it keeps alive"
        : "resumed only through \(holders), which the task itself reaches"
    }
    return holders.isEmpty ? nil : "resumed through \(holders)"
  }

  /// The rest of the report on a task left waiting: where it was made and waits, what could
  /// resume it, and for a leaked task what it keeps alive.
  ///
  /// ```text
  /// A task the test made (0x…) has not completed 0.02 s after the test.
  /// It was made at countAStream(into:finishing:) (HiddenOwnerSnippets.swift:N).
  /// It waits in closure #1 in countAStream(into:finishing:) at HiddenOwnerSnippets.swift:N,
  ///   resumed only through AsyncStream<Int>._Storage<>.state.continuations[0].context, which the task itself reaches.
  /// It keeps alive 1 × AsyncStream<Int>._Storage<>, 1 × StreamTotal, 1 × closure #1 in countAStream(into:finishing:).
  /// End the task when the test ends: finish or resume what it waits on, or cancel it; or allow it (LeakCheckConfiguration.allowedTasks) if that is by design.
  /// ```
  ///
  /// A task that nothing can resume (it waits on a continuation that was dropped):
  ///
  /// ```text
  /// A task the test made (0x…) has not completed 0.02 s after the test.
  /// It was made at startTaskDroppingItsUnsafeContinuation() (TaskSnippets.swift:N).
  /// It waits in closure #1 in startTaskDroppingItsUnsafeContinuation() at TaskSnippets.swift:N,
  ///   and nothing holds what could resume it: the task is leaked, with what it keeps alive.
  /// It keeps alive 1 × ContinuationPayload, 1 × closure #1 in startTaskDroppingItsUnsafeContinuation().
  /// Resume the continuation it waits on, on every path (one dropped without being resumed leaves its task waiting for ever, never freed); or allow it (LeakCheckConfiguration.allowedTasks) if that is by design.
  /// ```
  static func describeLeftTask(_ task: WaitingTask, path: RetainingPath?, keptAlive: [String: Int] = [:], names: NameStyle) -> String {
    let leaked = path?.origin == .leaked
    var text = task.createdAt.map { "It was made at \(names.frame($0)).\n" } ?? ""
    text += "It " + waits(task, names: names)
    text += (resumption(of: task, leaked: leaked, names: names).map { ",\n  \($0)" } ?? "") + ".\n"
    if let kept = names.otherTypes(keptAlive, named: [], limit: 6) { text += "It keeps alive \(kept).\n" }
    return text + (leaked && task.heldBy.isEmpty ? resumeTheContinuation : endTheTask)
  }

  /// The advice that ends a report on a task the test left.
  static let endTheTask =
    "End the task when the test ends: finish or resume what it waits on, or cancel it; or allow it (LeakCheckConfiguration.allowedTasks) if that is by design."

  /// The advice that ends a report on a task nothing can resume.
  static let resumeTheContinuation =
    "Resume the continuation it waits on, on every path (one dropped without being resumed leaves its task waiting for ever, never freed); "
    + "or allow it (LeakCheckConfiguration.allowedTasks) if that is by design."

  /// What holds the first object of a retaining path: `is held by global App.registry`.
  static func holder(of origin: RetainingPath.Origin) -> String {
    switch origin {
    case .root(let kind, let label) where kind == .external:
      "is held from outside the captured objects (\(label ?? "by an unknown holder")): \(unknownHolders)"
    case .root(let kind, let label?) where kind == .runtime:
      "is held by \(label)"  // `a block asyncAfter scheduled, not yet run`
    case .root(let kind, let label):
      "is held by \([kind.rawValue, label].compactMap { $0 }.joined(separator: " "))"
    case .leaked:
      "is itself leaked (nothing outside the heap holds it)"
    }
  }

  /// What can hold an object when neither a captured object nor global data does.
  static let unknownHolders =
    "not a global and no captured object, so a thread's stack (a local variable or an argument), a task, queue or timer still scheduled, or memory the tracker does not see"
}
