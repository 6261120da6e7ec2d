/// What `leak-detector run` found in the processes it checked: the leaked objects of each exit
/// snapshot (unreachable from every root), grouped by their entry (a cycle, or an object no
/// other leaked object holds) with everything the entry holds, each group with the allocation
/// sites of its entry objects and the tests that allocated them; identical groups of several
/// processes (XCTest's and Swift Testing's runs of one test binary) are merged.
///
/// ```text
/// Checked PetsPackageTests.xctest (pid 10): 6 objects when it exited, 4 leaked
/// Checked PetsPackageTests.xctest --testing-library swift-testing (pid 11): 6 objects when it exited, 4 leaked
///
/// Leaks: 4 objects in 1 group
/// Names from Pets are written without their module.
///   1) 2 × Owner.pets[0] → Pet.owner → Owner  (4 objects, 144 bytes)
///      in tests PetsTests.XCPetsTests.testAdopt(), PetsTests.adopt()
///      - Owner.pets[0]  allocated at PetsTests.XCPetsTests.testAdopt() (PetsTests.swift:6)
///      - Pet.owner  allocated at PetsTests.XCPetsTests.testAdopt() (PetsTests.swift:6)
///      in PetsPackageTests.xctest (pid 10); PetsPackageTests.xctest --testing-library swift-testing (pid 11)
///      fingerprint 17d8ce39623d29ac
///
/// Suppressed: 1 group (4 objects): 1 by the default rules
///   - 2 × XCTest.XCTestSuite.testRun → XCTest.XCTestSuiteRun.test → XCTest.XCTestSuite  (4 objects)  by type XCTest.*  (a default rule)
/// ```
///
/// A process's line says how long its capture took when that is known (`… 4 leaked (captured in
/// 0.41 s)`); the same report as JSON is ``renderJSON(exitStatus:gate:)``.
public struct RunReport: Sendable {
  /// One process checked.
  public struct Process: Sendable, Hashable {
    /// Its command line and pid (`leaky (pid 4242)`).
    public var description: String
    /// Its process id, when the run knows it (the name of the file its snapshot came in).
    public var processID: Int32? = nil
    /// Objects in its exit snapshot.
    public var objectCount: Int
    /// Of those, unreachable from every root (suppressed ones included).
    public var leakedObjectCount: Int
    /// What its capture could not see or had to retry.
    public var diagnostics: [CaptureDiagnostic]
    /// Leaked objects that no group counts: several groups' entries hold them (no one entry
    /// dominates them).
    public var sharedLeakedObjectCount: Int
    /// How long its capture took, when the agent said so.
    public var captureDuration: CaptureDuration? = nil
    /// The types of the entries of its groups that a suppression rule matched: the report says
    /// nothing more of their objects (no note on their unbalanced retains).
    public var suppressedTypeNames: Set<String> = []
  }

  /// A group of leaked objects with the same entry shape.
  public struct Leak: Sendable, Hashable {
    /// One object of the entry (an object of its cycle, or the entry object alone).
    public struct Member: Sendable, Hashable {
      public var typeName: String
      public var kind: ObjectKind
      /// The reference to the next object of the cycle.
      public var reference: String?
      /// Where it was allocated (for a closure context, where the closure is written).
      public var site: StackFrame?
    }

    /// The entry's objects with their references, for ``NameStyle``.
    public var links: [HeapFinding.Link] { members.map { HeapFinding.Link(typeName: $0.typeName, reference: $0.reference) } }

    public var fingerprint: Fingerprint
    /// The entry cycle (`A.b -> B.a -> A`) or type.
    public var summary: String
    /// How many identical groups, in all processes.
    public var instanceCount: Int
    /// Objects in all instances (each entry and what it dominates).
    public var objectCount: Int
    public var retainedSize: Int
    /// The entry's objects, as in its first instance.
    public var members: [Member]
    /// How many objects of each type the group's instances are made of (closure values left
    /// out), entry objects included: what a report names beyond the entry's cycle.
    public var objectTypes: [String: Int]
    /// The tests whose code allocated an entry object, sorted.
    public var tests: [String]
    /// The line in the checked package that made the leak: the first of the package's own frames
    /// (``OwnCode``) in the entry objects' allocation stacks, the most common one among the
    /// instances. The entry's own site may be a dependency's initializer; this is the line that
    /// called it.
    public var ownSite: StackFrame? = nil
    /// The processes it was found in.
    public var processes: [String]
    /// Whether the package's own code made an entry (see ``LeakAnalysis/LeakGroup/isOwn``):
    /// such groups come first.
    public var isOwn: Bool = false
    /// Whether the entry goes through test code (``TestCode``): a type of a test target or a
    /// closure written in a test. Such groups come after the library code's, and the text report
    /// folds them.
    public var isThroughTestCode: Bool = false
  }

  /// How often each of the package's lines made a group's entries, to name the most common.
  private struct OwnSiteCount {
    private var counts: [String: (frame: StackFrame, count: Int)] = [:]

    mutating func add(_ frame: StackFrame, count: Int) {
      // Not by program counter: the same line has other addresses in other processes.
      let key = "\(frame.file ?? ""):\(frame.line ?? 0) \(frame.symbol ?? "")"
      counts[key, default: (frame, 0)].count += count
    }

    /// The most common line, the first in file order among equals.
    var mostCommon: StackFrame? {
      counts.min { ($1.value.count, $0.key) < ($0.value.count, $1.key) }?.value.frame
    }
  }

  public var processes: [Process]
  /// A process the agent was asked to check and did not, with why.
  package struct Refusal: Sendable, Hashable {
    /// Its command line and pid (`helper --serve (pid 11)`).
    package var process: String
    package var processID: Int32
    /// Why, as a clause: `it has its own copy of the Swift runtime linked in …`.
    package var reason: String

    package init(process: String, processID: Int32, reason: String) {
      self.process = process
      self.processID = processID
      self.reason = reason
    }
  }

  /// The processes the agent was asked to check and refused (it does not understand their Swift
  /// runtime), in the order of their pids.
  package var refusals: [Refusal] = []
  /// The processes the agent checked that ended before they exited (a crash, `SIGKILL`), in the
  /// order of their pids: their leaks are unknown.
  package var endedEarly: [EndedEarly] = []

  /// Each process that was checked until it ended before it exited, unless a checked process
  /// started it, as a sentence (`… was not
  /// checked: it was killed by signal 11 …`): what every format says so that such a run reads as
  /// incomplete, never as clean. (A refused process is noted where the processes are listed: it
  /// may be no Swift program at all.)
  package var uncheckedProcesses: [String] { endedEarlyOnTheirOwn.map(\.message) }

  /// The processes of ``endedEarly`` that no checked process started: their end is news to the
  /// reader, and the run is incomplete.
  package var endedEarlyOnTheirOwn: [EndedEarly] { endedEarly.filter { !$0.startedByCheckedProcess } }

  /// The processes of ``endedEarly`` that checked processes started (a test that expects a crash
  /// runs the tests' binary as a child): the test that started each judges how it ended.
  package var childrenEndedEarly: [EndedEarly] { endedEarly.filter(\.startedByCheckedProcess) }

  /// Leaks to report: the library code's before those through test code, those the package's own
  /// code made first, then largest retained size first.
  public var leaks: [Leak]
  /// Leaks a suppression rule matched, with the first such rule.
  public var suppressed: [(leak: Leak, rule: Suppressions.Rule)]

  /// The report of exit snapshots, each analysed (`analyses`, with each process's description
  /// and whether it is a test runner, for ``TestAttribution``).
  public init(analyses: [(process: String, isTestProcess: Bool, analysis: HeapAnalysis)], suppressions: Suppressions) {
    var processes: [Process] = []
    var byFingerprint: [Fingerprint: Leak] = [:]
    var order: [Fingerprint] = []
    var suppressedBy: [Fingerprint: Suppressions.Rule] = [:]
    var ownSites: [Fingerprint: OwnSiteCount] = [:]
    var firstInstanceOwnSites: [Fingerprint: StackFrame] = [:]
    for (process, isTestProcess, analysis) in analyses {
      let graph = analysis.graph
      let ownCode = analysis.options.ownCode
      let testCode =
        isTestProcess ? TestCode(stacks: graph.stacks.lazy.map(\.frames), packageDirectory: ownCode.packageDirectory) : .none
      // A group's entry objects share a few allocation stacks (a leak made once per test, in
      // every test): each stack is read once.
      var testsByStack: [Int32: String?] = [:]
      var kinds = FrameMemo<TestAttribution.FrameKind?>()
      func test(allocating frames: [StackFrame]) -> String? {
        TestAttribution.test(allocating: frames, inTestProcess: isTestProcess, kinds: &kinds)
      }
      func test(allocating stack: Int32) -> String? {
        if let known = testsByStack[stack] { return known }
        let test = test(allocating: graph.stacks[Int(stack)].frames)
        testsByStack[stack] = test
        return test
      }
      processes.append(
        Process(
          description: process, objectCount: graph.allocationCount, leakedObjectCount: analysis.leaks.leakedObjectCount,
          diagnostics: graph.metadata.diagnosticRecords,
          sharedLeakedObjectCount: max(0, analysis.leaks.leakedObjectCount - analysis.leaks.leakGroups.reduce(0) { $0 + $1.objectCount })))
      for group in analysis.leaks.leakGroups {
        let members = Self.members(of: group, in: graph)
        var entryStacks: [Int32] = []  // in the order of their first entry object
        var entryObjectsByStack: [Int32: Int] = [:]
        for id in group.entryObjectIDs {
          guard let node = graph.node(forObjectID: id), graph.stackIndices[node] >= 0 else { continue }
          let stack = graph.stackIndices[node]
          if entryObjectsByStack[stack] == nil { entryStacks.append(stack) }
          entryObjectsByStack[stack, default: 0] += 1
        }
        for stack in entryStacks {
          let frames = graph.stacks[Int(stack)].frames
          if let index = ownCode.firstOwnFrame(in: frames) {
            ownSites[group.fingerprint, default: OwnSiteCount()].add(frames[index], count: entryObjectsByStack[stack] ?? 0)
          }
        }
        let cycleStacks = group.entryCycle?.elements.map(\.allocationSite) ?? []
        let stacks = cycleStacks + entryStacks.map { graph.stacks[Int($0)].frames }
        var tests: [String] = []
        let attributed =
          cycleStacks.map { test(allocating: $0) } + entryStacks.map { test(allocating: $0) }
        for case let test? in attributed where !tests.contains(test) {
          tests.append(test)
        }
        if let rule = suppressions.rule(suppressingTypes: members.map(\.typeName), stacks: stacks, fingerprint: group.fingerprint) {
          suppressedBy[group.fingerprint] = suppressedBy[group.fingerprint] ?? rule
          processes[processes.count - 1].suppressedTypeNames.formUnion(members.map(\.typeName))
        }
        let objectTypes = LeakedObjectTypes.counts(
          keptAliveBy: group.entryObjectIDs.compactMap { graph.node(forObjectID: $0) }, graph: graph, tree: analysis.shortestPaths,
          countingEntries: true)
        if var known = byFingerprint[group.fingerprint] {
          known.objectTypes.merge(objectTypes, uniquingKeysWith: +)
          known.instanceCount += group.instanceCount
          known.objectCount += group.objectCount
          known.retainedSize.addSaturating(group.retainedSize)
          known.tests += tests.filter { !known.tests.contains($0) }
          known.isOwn = known.isOwn || group.isOwn
          if !known.processes.contains(process) { known.processes.append(process) }
          byFingerprint[group.fingerprint] = known
        } else {
          order.append(group.fingerprint)
          // The package's line of the instance whose sites the report shows, so that the two
          // name the same test; the most common line among all instances otherwise.
          firstInstanceOwnSites[group.fingerprint] =
            stacks.lazy.compactMap { frames in
              ownCode.firstOwnFrame(in: frames).map { frames[$0] }
            }.first
          byFingerprint[group.fingerprint] = Leak(
            fingerprint: group.fingerprint, summary: group.summary, instanceCount: group.instanceCount,
            objectCount: group.objectCount, retainedSize: group.retainedSize, members: members, objectTypes: objectTypes,
            tests: tests, processes: [process], isOwn: group.isOwn,
            isThroughTestCode: members.contains { testCode.contains(typeName: $0.typeName) })
        }
      }
    }
    var all = order.compactMap { byFingerprint[$0] }.sorted {
      ($0.isThroughTestCode ? 0 : 1, $0.isOwn ? 1 : 0, $0.retainedSize, $0.objectCount, $1.fingerprint) > (
        $1.isThroughTestCode ? 0 : 1, $1.isOwn ? 1 : 0, $1.retainedSize, $1.objectCount, $0.fingerprint
      )
    }
    for index in all.indices {
      all[index].tests.sort()
      all[index].ownSite = firstInstanceOwnSites[all[index].fingerprint] ?? ownSites[all[index].fingerprint]?.mostCommon
    }
    self.processes = processes
    leaks = all.filter { suppressedBy[$0.fingerprint] == nil }
    suppressed = all.compactMap { leak in suppressedBy[leak.fingerprint].map { (leak, $0) } }
  }

  /// The entry objects of `group`: its cycle's, or the entry object alone (a task that waits, with
  /// where it waits).
  private static func members(of group: LeakAnalysis.LeakGroup, in graph: ObjectGraph) -> [Leak.Member] {
    if group.entryCycle != nil {
      return group.entryCycleElements.map { element in
        Leak.Member(
          typeName: element.typeName, kind: element.kind, reference: element.reference,
          site: element.kind == .closureContext ? element.allocationSite.first : element.allocationSite.allocationSite)
      }
    }
    guard let id = group.entryObjectIDs.first, let node = graph.node(forObjectID: id) else { return [] }
    // A task that waits: where it was made, then where it waits.
    let suspension = WaitingTask.suspensionPoint(ofTask: node, in: graph)
    return [
      Leak.Member(
        typeName: graph.typeName(of: node), kind: graph.kind(of: node), reference: suspension.map { _ in SuspensionPoint.taskEdgeLabel },
        site: graph.allocationStack(of: node)?.frames.allocationSite)
    ]
      + (suspension.map { point in
        [
          Leak.Member(
            typeName: graph.typeName(of: point), kind: graph.kind(of: point), reference: nil,
            site: graph.allocationStack(of: point)?.frames.first)
        ]
      } ?? [])
  }

  /// Whether there is a leak to report.
  public var hasLeaks: Bool { !leaks.isEmpty }

  /// Readable names, with the home module of the leaks' types (the text and HTML reports').
  public var nameStyle: NameStyle { .readable(forTypeNames: leaks.flatMap { $0.members.map(\.typeName) }) }

  /// The leaks as findings, for the gate, SARIF, JUnit and Markdown: one per group, located at
  /// the package's line that made it, or else its first entry object's allocation site.
  public var findings: [HeapFinding] {
    HeapFinding.merged(
      leaks.map { leak in
        let testNote = leak.tests.isEmpty ? nil : "in \(leak.tests.joined(separator: ", "))"
        var finding = HeapFinding(
          kind: .leak, fingerprint: leak.fingerprint, summary: leak.summary + (testNote.map { " (\($0))" } ?? ""),
          count: leak.instanceCount, location: leak.ownSite ?? leak.members.lazy.compactMap(\.site).first,
          links: leak.links, note: testNote)
        finding.isThroughTestCode = leak.isThroughTestCode
        return finding
      })
  }
}
