import HeapGraph
import LeakTestSupport
import XCTest

/// The core of `leak-detector run`: the report of exit snapshots, which test allocated a leak,
/// and suppression rules.
final class RunReportTests: XCTestCase {
  private let xctestFrames = [
    StackFrame(symbol: "Pets.Pet.__allocating_init(name: Swift.String) -> Pets.Pet", file: "/p/Sources/Pets/Pets.swift", line: 10),
    StackFrame(symbol: "PetsTests.XCPetsTests.testAdoptLeaks() -> ()", file: "/p/Tests/PetsTests/XCPetsTests.swift", line: 7),
    StackFrame(
      symbol:
        "implicit closure #2 () -> () in implicit closure #1 (PetsTests.XCPetsTests) -> () -> () in variable initialization expression of static (extension in PetsPackageDiscoveredTests):PetsTests.XCPetsTests.(__allTests__XCPetsTests in _C508C02AFF32EC366A898C3ED908C2B2) : Swift.Array<(Swift.String, (PetsTests.XCPetsTests) -> () -> ())>"
    ),
    StackFrame(
      symbol: "reabstraction thunk helper from @escaping @callee_guaranteed () -> () to @escaping @callee_guaranteed () -> (@out ())"),
    StackFrame(
      symbol:
        "closure #1 (XCTest.XCTestCase) throws -> () in XCTest.(test in _3BE257A46ADB477C7BF2D39968B39F9D)<A where A: XCTest.XCTestCase>((A) -> () throws -> ()) -> (XCTest.XCTestCase) throws -> ()"
    ),
    StackFrame(symbol: "XCTest.XCTestCase.invokeTest() -> ()"),
  ]

  func testAttribution_xctestMethod_isTheOutermostFrameOfTheTestsOwnCode() {
    XCTAssertEqual(TestAttribution.test(allocating: xctestFrames, inTestProcess: true), "PetsTests.XCPetsTests.testAdoptLeaks()")
    let helper = [xctestFrames[0], StackFrame(symbol: "PetsTests.makePet() -> Pets.Pet")] + xctestFrames[1...]
    XCTAssertEqual(TestAttribution.test(allocating: Array(helper), inTestProcess: true), "PetsTests.XCPetsTests.testAdoptLeaks()")
  }

  func testAttribution_allocationInAnAssertionsAutoclosure_namesTheTest() {
    let frames = [
      StackFrame(symbol: "Swinject.Container.resolve<A>(A.Type) -> Swift.Optional<A>"),
      StackFrame(symbol: "implicit closure #1 () throws -> Swift.Optional<Any> in SwinjectTests.LazyTests.testCircular() -> ()"),
      StackFrame(
        symbol:
          "XCTest.XCTAssertNotNil(@autoclosure () throws -> Swift.Optional<Any>, @autoclosure () -> Swift.String, file: Swift.StaticString, line: Swift.UInt) -> ()"
      ),
      StackFrame(symbol: "SwinjectTests.LazyTests.testCircular() -> ()"),
      StackFrame(symbol: "XCTest.XCTestCase.invokeTest() -> ()"),
    ]
    XCTAssertEqual(TestAttribution.test(allocating: frames, inTestProcess: true), "SwinjectTests.LazyTests.testCircular()")
  }

  func testAttribution_allocationInAHelpersAssertion_namesTheTestThatCalledTheHelper() {
    let frames = [
      StackFrame(symbol: "Tests.Pair.__allocating_init() -> Tests.Pair"),
      StackFrame(symbol: "Tests.makePair() throws -> Tests.Pair"),
      StackFrame(symbol: "implicit closure #1 () throws -> Tests.Pair in Tests.HelperTests.makeFixture() -> ()"),
      StackFrame(
        symbol:
          "XCTest.XCTAssertNoThrow<A>(_: @autoclosure () throws -> A, _: @autoclosure () -> Swift.String, file: Swift.StaticString, line: Swift.UInt) -> ()"
      ),
      StackFrame(symbol: "Tests.HelperTests.makeFixture() -> ()"),
      StackFrame(symbol: "Tests.HelperTests.testLeakThroughHelper() -> ()"),
      StackFrame(symbol: "XCTest.XCTestCase.invokeTest() -> ()"),
      StackFrame(symbol: "static Tests.Runner.main() -> ()"),
      StackFrame(symbol: "main"),
    ]
    XCTAssertEqual(TestAttribution.test(allocating: frames, inTestProcess: true), "Tests.HelperTests.testLeakThroughHelper()")
  }

  func testAttribution_swiftTestingFunction_isFoundInsideTheMacroExpansion() {
    let frames = [
      StackFrame(symbol: "Pets.Timerish.__allocating_init() -> Pets.Timerish"),
      StackFrame(symbol: "PetsTests.timerLeaks() -> ()"),
      StackFrame(
        symbol:
          "(1) suspend resume partial function for $s9PetsTests10timerLeaks4TestfMp_7__localfMu_ #1 @Sendable (isolated Swift.Optional<Swift.Actor>) async throws -> () in PetsTests.($s9PetsTests10timerLeaks4TestfMp_15ed3ff0d68856942fMu_ in _B7AA348DC2B826B6EED13F73D404FD86)@Sendable () async throws -> ()"
      ),
      StackFrame(symbol: "_ZN5swift34runJobInEstablishedExecutorContextEPNS_3JobE"),
    ]
    XCTAssertEqual(TestAttribution.test(allocating: frames, inTestProcess: true), "PetsTests.timerLeaks()")
  }

  func testAttribution_asyncTestAfterAnAwait_isNamedOnlyInATestProcess() {
    let frames = [
      StackFrame(symbol: "Pets.Timerish.__allocating_init() -> Pets.Timerish"),
      StackFrame(symbol: "(2) suspend resume partial function for PetsTests.asyncLeak() async -> ()"),
      StackFrame(symbol: "_ZN5swift34runJobInEstablishedExecutorContextEPNS_3JobE"),
      StackFrame(symbol: "swift_job_run"),
    ]
    XCTAssertEqual(TestAttribution.test(allocating: frames, inTestProcess: true), "PetsTests.asyncLeak()")
    XCTAssertNil(TestAttribution.test(allocating: frames, inTestProcess: false))
  }

  func testAttribution_stackWithoutATestFramework_namesNoTest() {
    let frames = [
      StackFrame(symbol: "App.Node.__allocating_init() -> App.Node"), StackFrame(symbol: "main"),
      StackFrame(symbol: "__libc_start_call_main"),
    ]
    XCTAssertNil(TestAttribution.test(allocating: frames, inTestProcess: true))
    XCTAssertNil(TestAttribution.test(allocating: [], inTestProcess: true))
  }

  func testSuppressions_parseEveryKindWithReasonsAndOrigins() throws {
    let rules = try Suppressions(
      parsing: "# header\n\ntype Vendor.Pool*   # pooled\nsite *Parser.swift\nstack App.Legacy.*\nfingerprint 387510702306f2fb\n",
      name: "s.txt")
    XCTAssertEqual(rules.rules.map(\.kind), [.type, .site, .stack, .fingerprint])
    XCTAssertEqual(rules.rules[0].reason, "pooled")
    XCTAssertNil(rules.rules[1].reason)
    XCTAssertEqual(rules.rules.map(\.origin), ["s.txt:3", "s.txt:4", "s.txt:5", "s.txt:6"])
  }

  func testSuppressions_badLines_nameTheLineAndTheProblem() {
    for (text, message) in [
      ("type\n", "line 1: expected a kind and one pattern (like `type MyApp.Cache`), found 1 words"),
      ("\ntype A B\n", "line 2: expected a kind and one pattern (like `type MyApp.Cache`), found 3 words"),
      ("kind A\n", "line 1: unknown kind 'kind'; use one of type, site, stack, fingerprint"),
    ] {
      XCTAssertThrowsError(try Suppressions(parsing: text, name: "s")) { error in
        XCTAssertEqual((error as? Suppressions.ParseError)?.description, message)
      }
    }
  }

  func testSuppressions_typeRules_suppressOnlyWhenEveryEntryObjectMatches() throws {
    let rules = try Suppressions(parsing: "type Foundation.*\n", name: "s")
    let fingerprint = Fingerprint(rawValue: 0x1234)
    XCTAssertNotNil(rules.rule(suppressingTypes: ["Foundation.Operation", "Foundation.Thread"], stacks: [], fingerprint: fingerprint))
    XCTAssertNil(rules.rule(suppressingTypes: ["Foundation.Operation", "App.Downloader"], stacks: [], fingerprint: fingerprint))
    XCTAssertNil(rules.rule(suppressingTypes: [], stacks: [], fingerprint: fingerprint))
  }

  func testSuppressions_siteMatchesTheAllocationSiteAndStackAnyFrame() throws {
    let rules = try Suppressions(parsing: "site *Pets.swift\n", name: "s")
    let fingerprint = Fingerprint(rawValue: 0x1234)
    // The allocating initializer is skipped: the site is the test's line, not Pets.swift.
    XCTAssertNil(rules.rule(suppressingTypes: ["Pets.Pet"], stacks: [xctestFrames], fingerprint: fingerprint))
    let site = try Suppressions(parsing: "site *XCPetsTests.swift\n", name: "s")
    XCTAssertNotNil(site.rule(suppressingTypes: ["Pets.Pet"], stacks: [xctestFrames], fingerprint: fingerprint))
    let stack = try Suppressions(parsing: "stack XCTest.XCTestCase.invokeTest*\n", name: "s")
    XCTAssertNotNil(stack.rule(suppressingTypes: ["Pets.Pet"], stacks: [xctestFrames], fingerprint: fingerprint))
  }

  func testSuppressions_glob() {
    XCTAssertTrue(Suppressions.standard.suppresses(type: "Foundation.NSLock"))
    XCTAssertTrue(Suppressions.standard.suppresses(type: "closure #1 in XCTest.XCTestCase.wait(for: [XCTestExpectation])"))
    XCTAssertFalse(Suppressions.standard.suppresses(type: "App.Swiftly"))
    let rules = Suppressions(rules: [.init(kind: .type, pattern: "A?c*e", reason: nil, origin: "t")])
    XCTAssertTrue(rules.suppresses(type: "Abcache"))
    XCTAssertTrue(rules.suppresses(type: "Abce"))
    XCTAssertFalse(rules.suppresses(type: "Acache"))
    XCTAssertFalse(rules.suppresses(type: "Abcached"))
  }

  /// Two processes' exit snapshots (as `swift test` makes): a cycle leaked in both is one group
  /// with both tests, a framework cycle is suppressed, a held cycle is not a leak.
  func testReport_mergesProcessesNamesTestsAndCountsSuppressions_golden() {
    func snapshot(process: String, test: String) -> HeapSnapshot {
      var builder = HeapSnapshot.Builder(metadata: .init(tool: "test", process: process))
      builder.addStack(
        id: 1,
        frames: [
          StackFrame(symbol: "Pets.Owner.__allocating_init() -> Pets.Owner", file: "/p/Sources/Pets/Pets.swift", line: 3),
          StackFrame(symbol: "\(test) -> ()", file: "/p/Tests/PetsTests/PetsTests.swift", line: 6),
          StackFrame(symbol: "XCTest.XCTestCase.invokeTest() -> ()"),
        ])
      builder.addObject(id: 1, type: "Pets.Owner", address: 0x1000, size: 40, stack: 1)
      builder.addObject(id: 2, type: "Pets.Pet", address: 0x2000, size: 32, stack: 1)
      builder.addReference(from: 1, to: 2, label: "pets[0]", ownership: .strong)
      builder.addReference(from: 2, to: 1, label: "owner", ownership: .strong)
      builder.addObject(id: 3, type: "XCTest.XCTestSuite", address: 0x3000, size: 64)
      builder.addObject(id: 4, type: "XCTest.XCTestSuiteRun", address: 0x4000, size: 64)
      builder.addReference(from: 3, to: 4, label: "testRun", ownership: .strong)
      builder.addReference(from: 4, to: 3, label: "test", ownership: .strong)
      builder.addObject(id: 5, type: "Pets.Registry", address: 0x5000, size: 16)
      builder.addObject(id: 6, type: "Pets.Pet", address: 0x6000, size: 32)
      builder.addReference(from: 5, to: 6, label: "pets[0]", ownership: .strong)
      builder.addReference(from: 6, to: 5, label: "owner", ownership: .strong)
      builder.addRoot(object: 5, kind: .global, label: "Pets.registry")
      return builder.snapshot
    }
    let analyses = [
      ("PetsPackageTests.xctest (pid 10)", "PetsTests.XCPetsTests.testAdopt()"),
      ("PetsPackageTests.xctest --testing-library swift-testing (pid 11)", "PetsTests.adopt()"),
    ].map { process, test in
      (process: process, isTestProcess: true, analysis: HeapAnalysis(graph: ObjectGraph(snapshot(process: process, test: test))))
    }
    let report = RunReport(analyses: analyses, suppressions: .standard)
    XCTAssertEqual(report.leaks.count, 1)
    XCTAssertEqual(report.leaks[0].tests, ["PetsTests.XCPetsTests.testAdopt()", "PetsTests.adopt()"])
    XCTAssertEqual(report.suppressed.map(\.rule.origin), ["default"])
    XCTAssertEqual(
      report.findings.map(\.summary),
      ["Pets.Owner.pets[0] -> Pets.Pet.owner -> Pets.Owner (in PetsTests.XCPetsTests.testAdopt(), PetsTests.adopt())"])
    assertMatchesGolden(report.renderText(), named: "run-report.txt")
    assertMatchesGolden(report.reportText().markedUp, named: "run-report.roles.txt")
    assertMatchesGolden(report.renderHTML(command: "swift test"), named: "run-report.html")
  }

  /// A group names the types its cycle does not: what else its entries hold, most numerous first.
  func testReport_namesTheTypesAGroupHoldsBeyondItsCycle() {
    var builder = HeapSnapshot.Builder(metadata: .init(tool: "test", process: "Uploads (pid 8)"))
    builder.addObject(id: 1, type: "App.Uploader", address: 0x1000, size: 48)
    builder.addObject(id: 2, type: "App.Retry", address: 0x2000, size: 32)
    builder.addObject(id: 3, type: "Dispatch.DispatchQueue", address: 0x3000, size: 64)
    builder.addObject(id: 4, type: "App.Chunk", address: 0x4000, size: 16)
    builder.addObject(id: 5, type: "App.Chunk", address: 0x5000, size: 16)
    builder.addReference(from: 1, to: 2, label: "retry", ownership: .strong)
    builder.addReference(from: 2, to: 1, label: "uploader", ownership: .strong)
    builder.addReference(from: 1, to: 3, label: "queue", ownership: .strong)
    builder.addReference(from: 2, to: 4, label: "chunks[0]", ownership: .strong)
    builder.addReference(from: 2, to: 5, label: "chunks[1]", ownership: .strong)
    let analysis = HeapAnalysis(graph: ObjectGraph(builder.snapshot), options: .init(rootsAreComplete: true))
    let report = RunReport(analyses: [(process: "Uploads (pid 8)", isTestProcess: false, analysis: analysis)], suppressions: Suppressions())
    XCTAssertEqual(report.leaks.map(\.objectTypes), [["App.Uploader": 1, "App.Retry": 1, "Dispatch.DispatchQueue": 1, "App.Chunk": 2]])
    XCTAssertTrue(report.renderText().contains("\n     also holds 2 × Chunk, 1 × Dispatch.DispatchQueue\n"), report.renderText())
  }

  func testUnbalancedRetain_readsBackFromItsDiagnosticOnly() {
    let retain = UnbalancedRetain(typeName: "closure at 0x10 in App.Token<Int>", address: 0x55d1_c2a3_e8f0, count: 2)
    XCTAssertEqual(
      retain.diagnostic.message,
      "closure at 0x10 in App.Token<Int> at 0x55d1c2a3e8f0: 2 strong references that no word of memory holds, an unbalanced retain (such as Unmanaged.passRetained whose pointer was dropped); it counts as leaked"
    )
    XCTAssertEqual(UnbalancedRetain(diagnostic: retain.diagnostic), retain)
    XCTAssertNil(
      UnbalancedRetain(
        diagnostic: CaptureDiagnostic(message: "App.Feed: task._task: 0x51 is not a readable heap object; the reference was dropped")))
  }

  /// The objects a capture found held by unbalanced retains are named once, by type, apart from
  /// the other diagnostics, which are only counted.
  func testReport_namesUnbalancedRetainsByTypeAndLeavesOtherDiagnosticsToTheJSON() {
    var builder = HeapSnapshot.Builder(metadata: .init(tool: "test", process: "Retains (pid 7)"))
    builder.addObject(id: 1, type: "Retains.DroppedRetain", address: 0x1000, size: 24)
    builder.addObject(id: 2, type: "Retains.DroppedRetain", address: 0x2000, size: 24)
    builder.addObject(id: 3, type: "Retains.WeaklyReferenced", address: 0x3000, size: 16)
    var snapshot = builder.snapshot
    snapshot.metadata.diagnosticRecords = [
      UnbalancedRetain(typeName: "Retains.DroppedRetain", address: 0x1000, count: 1).diagnostic,
      UnbalancedRetain(typeName: "Retains.DroppedRetain", address: 0x2000, count: 1).diagnostic,
      UnbalancedRetain(typeName: "Retains.WeaklyReferenced", address: 0x3000, count: 1).diagnostic,
      CaptureDiagnostic(message: "Foundation.DateFormatter has no reflection metadata"),
    ]
    let analysis = HeapAnalysis(graph: ObjectGraph(snapshot), options: .init(rootsAreComplete: true))
    let report = RunReport(analyses: [(process: "Retains (pid 7)", isTestProcess: false, analysis: analysis)], suppressions: .standard)
    XCTAssertEqual(
      report.renderProcesses(),
      """
      Checked Retains (pid 7): 3 objects when it exited, 3 leaked
        note: 3 objects retained though no word of memory refers to them (no heap block, global, stack, thread-local or pthread-specific value), counted as leaked (unbalanced retains, such as Unmanaged.passRetained whose pointer was dropped): 2 × DroppedRetain, WeaklyReferenced

      """)
    XCTAssertEqual(report.reportText().lines.prefix(2).map(\.role), [.heading, .note])
  }

  /// The note on unbalanced retains leaves out the objects of suppressed groups, which the
  /// report otherwise says nothing of.
  func testReport_unbalancedRetainsOfSuppressedGroups_areNotNoted() {
    var builder = HeapSnapshot.Builder(metadata: .init(tool: "test", process: "Tests (pid 7)"))
    builder.addObject(id: 1, type: "Foundation.Timer", address: 0x1000, size: 64)
    builder.addObject(id: 2, type: "App.DroppedRetain", address: 0x2000, size: 24)
    var snapshot = builder.snapshot
    snapshot.metadata.diagnosticRecords = [
      UnbalancedRetain(typeName: "Foundation.Timer", address: 0x1000, count: 1).diagnostic,
      UnbalancedRetain(typeName: "App.DroppedRetain", address: 0x2000, count: 1).diagnostic,
    ]
    let analysis = HeapAnalysis(graph: ObjectGraph(snapshot), options: .init(rootsAreComplete: true))
    let report = RunReport(analyses: [(process: "Tests (pid 7)", isTestProcess: true, analysis: analysis)], suppressions: .standard)
    XCTAssertEqual(report.suppressed.map(\.leak.summary), ["Foundation.Timer"])
    XCTAssertTrue(
      report.renderProcesses().contains(
        "counted as leaked (unbalanced retains, such as Unmanaged.passRetained whose pointer was dropped): DroppedRetain\n"),
      report.renderProcesses())
    XCTAssertFalse(report.renderProcesses().contains("Timer"), report.renderProcesses())
  }

  /// The report reads each diagnostic's kind and fields, never its sentence: a failed attempt
  /// worded otherwise is still a note, an unbalanced retain worded otherwise is still named by
  /// its type, and a sentence that only looks like a failure (no kind) is left to the JSON report.
  func testReport_readsKindsNotSentences() {
    var builder = HeapSnapshot.Builder(metadata: .init(tool: "test", process: "Retains (pid 7)"))
    builder.addObject(id: 1, type: "Retains.DroppedRetain", address: 0x1000, size: 24)
    var snapshot = builder.snapshot
    var reworded = UnbalancedRetain(typeName: "Retains.DroppedRetain", address: 0x1000, count: 1).diagnostic
    reworded.message = "a reworded sentence"
    snapshot.metadata.diagnosticRecords = [
      CaptureDiagnostic(kind: .captureFailed, message: "a child of the capture crashed; captured again", count: 1),
      reworded,
      CaptureDiagnostic(message: "the capture process was killed by signal 11 (Segmentation fault) while reading nothing yet"),
    ]
    let analysis = HeapAnalysis(graph: ObjectGraph(snapshot), options: .init(rootsAreComplete: true))
    let report = RunReport(analyses: [(process: "Retains (pid 7)", isTestProcess: false, analysis: analysis)], suppressions: .standard)
    XCTAssertEqual(
      report.renderProcesses(),
      """
      Checked Retains (pid 7): 1 object when it exited, 1 leaked
        note: a child of the capture crashed; captured again
        note: 1 object retained though no word of memory refers to it (no heap block, global, stack, thread-local or pthread-specific value), counted as leaked (unbalanced retains, such as Unmanaged.passRetained whose pointer was dropped): DroppedRetain

      """)
  }
}

/// Leak analysis as `run` needs it: complete roots, and groups that read the same in every run.
final class WholeProcessLeakAnalysisTests: XCTestCase {
  /// A parent with two children, each holding it back; `swapped` allocates them in another
  /// order (other ids and addresses), as another run of the same program may.
  private func family(swapped: Bool, roots: Bool) -> ObjectGraph {
    let (parent, first, second): (Int64, Int64, Int64) = swapped ? (3, 2, 1) : (1, 2, 3)
    var builder = HeapSnapshot.Builder()
    // Swapped, the first child also lies below the parent (addresses decide a cycle's rotation).
    for id in [Int64(1), 2, 3] { builder.addObject(id: id, type: "App.Node", address: UInt64(swapped ? 4 - id : id) * 0x1000) }
    builder.addReference(from: parent, to: first, label: "children[0]", ownership: .strong)
    builder.addReference(from: parent, to: second, label: "children[1]", ownership: .strong)
    builder.addReference(from: first, to: parent, label: "parent", ownership: .strong)
    builder.addReference(from: second, to: parent, label: "parent", ownership: .strong)
    if roots {
      builder.addObject(id: 4, type: "App.Unrelated", address: 0x4000)
      builder.addRoot(object: 4, kind: .global, label: "App.unrelated")
    }
    return ObjectGraph(builder.snapshot)
  }

  /// XCTest's suite and run hold a test case (in a cycle with its run), whose properties hold a
  /// fixture (no cycle) and a cycle of the program's; the fixture holds another. Unless framework
  /// types are named, the suite's group swallows both program cycles; with them, each is a group.
  func testFrameworkTypes_cyclesOnlyTheFrameworkHolds_areGroupsOfTheirOwn() {
    var builder = HeapSnapshot.Builder()
    let types: [Int64: String] = [
      1: "XCTest.XCTestSuite", 2: "XCTest.XCTestSuiteRun", 3: "AppTests.ShelterTests", 4: "XCTest.XCTestCaseRun",
      5: "App.Owner", 6: "App.Pet", 7: "AppTests.Fixture", 8: "App.Node", 9: "App.Node",
    ]
    for (id, type) in types.sorted(by: { $0.key < $1.key }) { builder.addObject(id: id, type: type, address: UInt64(id) * 0x1000) }
    for (from, to, label) in [
      (1, 2, "testRun"), (2, 1, "test"), (1, 3, "tests[0]"), (3, 4, "testRun"), (4, 3, "test"), (3, 5, "owner"),
      (5, 6, "pets[0]"), (6, 5, "owner"), (3, 7, "fixture"), (7, 8, "first"), (8, 9, "next"), (9, 8, "next"),
    ] as [(Int64, Int64, String)] {
      builder.addReference(from: from, to: to, label: label, ownership: .strong)
    }
    let graph = ObjectGraph(builder.snapshot)
    let plain = HeapAnalysis(graph: graph, options: .init(rootsAreComplete: true)).leaks
    XCTAssertEqual(plain.leakGroups.map(\.objectCount), [9])
    let split = HeapAnalysis(graph: graph, options: .init(rootsAreComplete: true, frameworkTypes: .standard)).leaks
    XCTAssertEqual(split.leakedObjectCount, 9)
    XCTAssertEqual(
      Set(split.leakGroups.map { "\($0.summary) \($0.objectCount)" }),
      [
        "XCTest.XCTestSuite.testRun -> XCTest.XCTestSuiteRun.test -> XCTest.XCTestSuite 5", "App.Node.next -> App.Node.next -> App.Node 2",
        "App.Owner.pets[0] -> App.Pet.owner -> App.Owner 2",
      ])
  }

  func testCompleteRoots_snapshotWithoutRoots_hasLeakedEverything() {
    XCTAssertEqual(LeakAnalysis(graph: family(swapped: false, roots: false)).leakedObjectCount, 0, "roots unknown")
    let complete = LeakAnalysis(graph: family(swapped: false, roots: false), rootsAreComplete: true)
    XCTAssertEqual(complete.leakedObjectCount, 3)
    XCTAssertEqual(complete.leakGroups.map(\.summary), ["App.Node.children[0] -> App.Node.parent -> App.Node"])
  }

  func testLeakGroup_ofObjectsOfOneType_readsTheSameWhateverTheAddresses() {
    let groups = [false, true].map { swapped in LeakAnalysis(graph: family(swapped: swapped, roots: true)).leakGroups }
    XCTAssertEqual(groups[0].map(\.summary), ["App.Node.children[0] -> App.Node.parent -> App.Node"])
    XCTAssertEqual(groups[0].map(\.summary), groups[1].map(\.summary))
    XCTAssertEqual(groups[0].map(\.fingerprint), groups[1].map(\.fingerprint))
  }

  /// A refused process is a note after the processes checked, in the text, JSON and HTML reports.
  func testRunReport_notesTheRefusedProcesses_golden() {
    var builder = HeapSnapshot.Builder(metadata: HeapSnapshot.Metadata(tool: "test", process: "Server (pid 10)"))
    builder.addObject(id: 1, type: "Server.Cache", address: 0x1000, size: 32)
    builder.addRoot(object: 1, kind: .global, label: "Server.cache")
    let analysis = HeapAnalysis(graph: ObjectGraph(builder.snapshot), options: .init(rootsAreComplete: true))
    var report = RunReport(analyses: [("Server (pid 10)", false, analysis)], suppressions: .standard)
    report.refusals = [
      RunReport.Refusal(
        process: "helper --serve (pid 11)", processID: 11,
        reason: "it has its own copy of the Swift runtime linked in (built with --static-swift-stdlib), whose allocations the agent "
          + "cannot see; build it without --static-swift-stdlib to check it")
    ]
    report.processes[0].processID = 10
    assertMatchesGolden(report.renderText(), named: "run-report-refused.txt")
    assertMatchesGolden(report.renderJSON(exitStatus: 0), named: "run-report-refused.json")
    XCTAssertTrue(
      report.renderHTML(command: "Server").contains("<li>Not checked <code>helper --serve (pid 11)</code>: it has its own copy"))
    XCTAssertTrue(report.reportText().markedUp.contains("Not checked helper --serve (pid 11)"), report.reportText().markedUp)
  }

  /// A checked process that a signal killed before it exited is said in the text, JSON and HTML
  /// reports, and the text does not read as clean.
  func testRunReport_saysWhichProcessesEndedBeforeTheyExited_golden() {
    var builder = HeapSnapshot.Builder(metadata: HeapSnapshot.Metadata(tool: "test", process: "PetsPackageTests.xctest (pid 10)"))
    builder.addObject(id: 1, type: "Pets.Cache", address: 0x1000, size: 32)
    builder.addRoot(object: 1, kind: .global, label: "Pets.cache")
    let analysis = HeapAnalysis(graph: ObjectGraph(builder.snapshot), options: .init(rootsAreComplete: true))
    var report = RunReport(analyses: [("PetsPackageTests.xctest (pid 10)", true, analysis)], suppressions: .standard)
    report.processes[0].processID = 10
    report.endedEarly = [
      RunReport.EndedEarly(
        process: "PetsPackageTests.xctest --testing-library swift-testing (pid 11)", processID: 11,
        signal: (11, "Segmentation fault")),
      RunReport.EndedEarly(process: "PetsPackageTests.xctest (pid 12)", processID: 12, signal: nil),
      RunReport.EndedEarly(
        process: "PetsPackageTests.xctest PetsTests.CrashTests/testCrashes (pid 13)", processID: 13, signal: (4, "Illegal instruction"),
        startedByCheckedProcess: true),
      RunReport.EndedEarly(
        process: "PetsPackageTests.xctest PetsTests.CrashTests/testAborts (pid 14)", processID: 14, signal: (6, "Aborted"),
        startedByCheckedProcess: true),
    ]
    assertMatchesGolden(report.renderText(), named: "run-report-ended-early.txt")
    assertMatchesGolden(report.renderJSON(exitStatus: 1), named: "run-report-ended-early.json")
    XCTAssertFalse(report.renderText().contains("Leaks: none\n"))
    XCTAssertTrue(
      report.renderHTML(command: "swift test").contains(
        "<p class=\"verdict bad\">PetsPackageTests.xctest --testing-library swift-testing (pid 11) was not checked: it was killed by signal 11 (Segmentation fault) before it exited, so its leaks are unknown</p>"
      ))
    var outcome = GateOutcome(findings: report.findings, baseline: Baseline())
    outcome.uncheckedProcesses = report.uncheckedProcesses
    XCTAssertTrue(outcome.renderMarkdown().hasPrefix("## Leak gate: incomplete\n\n**Not checked:** PetsPackageTests.xctest"))
    XCTAssertTrue(outcome.renderJUnit().contains("tests=\"2\" failures=\"2\""), outcome.renderJUnit())
    // The crash tests' children are one note, and leave the run complete.
    XCTAssertEqual(report.uncheckedProcesses.count, 2)
    var crashTestsOnly = report
    crashTestsOnly.endedEarly = report.childrenEndedEarly
    XCTAssertTrue(crashTestsOnly.renderText().hasSuffix("\nLeaks: none\n"), crashTestsOnly.renderText())
  }
}
