import CLeakRuntime
import HeapGraph
import LeakDetector
import XCTest

/// What a capture does when its child process fails: each failure is a diagnostic, a fresh child
/// takes over, and when every attempt fails the capture says so instead of crashing or hanging.
final class CaptureProcessTests: XCTestCase {
  /// `diagnostics` without the note that libdispatch's layouts are not the ones read: under
  /// ThreadSanitizer, which wraps Dispatch sources' handlers, every capture adds it.
  private static func capturesOwn(_ diagnostics: [String]) -> [String] {
    diagnostics.filter { !$0.hasPrefix("libdispatch's layouts are not the ones this build reads") }
  }

  override func tearDown() {
    CaptureFault.staged.withLock { $0.removeAll() }
    super.tearDown()
  }

  private func stage(_ faults: CaptureFault...) {
    CaptureFault.staged.withLock { $0 = faults }
  }

  private func twoNodeCycle() -> Node {
    let (a, b) = (escaping(Node("a")), escaping(Node("b")))
    a.next = b
    b.next = a
    return a
  }

  private func detector(_ limits: CaptureLimits = CaptureLimits()) -> RetainCycleDetector {
    var configuration = RetainCycleDetector.Configuration()
    configuration.captureLimits = limits
    return RetainCycleDetector(configuration: configuration)
  }

  func testCapture_childCrashes_isCapturedAgainAndSaysSo() {
    let start = twoNodeCycle()
    stage(.crash)
    let detector = detector()
    detector.addCandidate(start)
    XCTAssertEqual(detector.findRetainCycles().map(normalized), ["Node.next -> Node.next -> Node"])
    XCTAssertEqual(Self.capturesOwn(detector.diagnostics.map(\.message)).count, 1, "\(detector.diagnostics)")
    XCTAssertTrue(
      detector.diagnostics[0].message.hasPrefix(
        "the capture process was killed by signal 11 (Segmentation fault) while reading nothing yet; captured again"),
      detector.diagnostics[0].message)
  }

  func testCapture_childHangsEveryTime_isStoppedAndTheCaptureGivenUp() {
    let start = twoNodeCycle()
    stage(.hang, .hang)
    let detector = detector(CaptureLimits(stallTimeout: .milliseconds(200), attempts: 2))
    detector.addCandidate(start)
    let clock = ContinuousClock()
    let began = clock.now
    XCTAssertEqual(detector.findRetainCycles(), [])
    XCTAssertLessThan(clock.now - began, .seconds(5))
    XCTAssertEqual(Self.capturesOwn(detector.diagnostics.map(\.message)).count, 2, "\(detector.diagnostics)")
    XCTAssertTrue(
      detector.diagnostics[0].message.hasPrefix("the capture process made no progress for 0.2 seconds"), detector.diagnostics[0].message)
    XCTAssertTrue(detector.diagnostics[0].message.hasSuffix("it was stopped; captured again"), detector.diagnostics[0].message)
    XCTAssertTrue(detector.diagnostics[1].message.hasSuffix("; the capture was given up after 2 attempts"), detector.diagnostics[1].message)
    XCTAssertEqual(detector.lastSnapshot?.objectCount, 0)
  }

  func testCapture_childRunsPastTheTimeLimit_isStopped() {
    let start = twoNodeCycle()
    stage(.hang)
    // Room for the second attempt's real capture on a loaded machine, under the sanitizers too.
    let detector = detector(CaptureLimits(stallTimeout: .seconds(60), timeLimit: .milliseconds(1500), attempts: 2))
    detector.addCandidate(start)
    XCTAssertEqual(detector.findRetainCycles().count, 1, "\(detector.diagnostics)")
    XCTAssertTrue(detector.diagnostics[0].message.hasPrefix("the capture process ran longer than 1.5 seconds"), "\(detector.diagnostics)")
  }

  func testCapture_childExitsWithoutResult_orSendsGarbage_isCapturedAgain() {
    let start = twoNodeCycle()
    stage(.exitWithoutResult, .corruptResult)
    let detector = detector()
    detector.addCandidate(start)
    XCTAssertEqual(detector.findRetainCycles().count, 1)
    XCTAssertEqual(Self.capturesOwn(detector.diagnostics.map(\.message)).count, 2, "\(detector.diagnostics)")
    XCTAssertEqual(detector.diagnostics[0].message, "the capture process exited with status 3 without sending its result; captured again")
    XCTAssertTrue(
      detector.diagnostics[1].message.hasPrefix("the capture process sent a result that could not be read ("),
      detector.diagnostics[1].message)
  }

  func testTrackerSnapshot_everyAttemptFails_isEmptyWithItsDiagnostics() {
    stage(.crash, .crash)
    let snapshot = AllocationTracker.snapshot(limits: CaptureLimits(attempts: 2))
    XCTAssertEqual(snapshot.objectCount, 0)
    XCTAssertEqual(Self.capturesOwn(snapshot.metadata.diagnostics).count, 2)
    XCTAssertTrue(snapshot.metadata.diagnostics[1].hasSuffix("given up after 2 attempts"), "\(snapshot.metadata.diagnostics)")
  }

  /// A capture whose every attempt failed says why as a value: the last attempt's failure, whose
  /// sentence and record are the snapshot's last diagnostic of a failed capture (a layout check
  /// may note after it what it could not read: under ThreadSanitizer, libdispatch's blocks).
  func testCapture_everyAttemptFails_givesAFailureThatIsTheLastDiagnostic() throws {
    stage(.crash, .crash)
    let heap = AllocationTracker.captureLiveHeap(limits: CaptureLimits(attempts: 2))
    let failure = try XCTUnwrap(heap.failure)
    XCTAssertEqual(failure.attempts, 2)
    XCTAssertEqual(
      failure.description,
      "the capture process was killed by signal 11 (Segmentation fault) while reading nothing yet; the capture was given up after 2 attempts"
    )
    XCTAssertEqual(failure.diagnostic, heap.snapshot.metadata.diagnosticRecords.last { $0.kind == .captureFailed })
    XCTAssertEqual(failure.diagnostic.kind, .captureFailed)
    XCTAssertEqual(failure.diagnostic.count, 2)
    XCTAssertNil(AllocationTracker.captureLiveHeap(limits: CaptureLimits(attempts: 2)).failure, "nothing staged: captured")
  }

  /// Each failed attempt is a diagnostic of kind `capture-failed` with its attempt's number, and
  /// the walk's own diagnostics carry their kinds too, through the child's binary message.
  func testCapture_failedAttemptsAndWalkDiagnostics_carryTheirKinds() {
    let nodes = (0..<10).map { escaping(Node("\($0)")) }
    for (node, next) in zip(nodes, nodes.dropFirst()) { node.children = [next] }
    stage(.crash)
    var configuration = RetainCycleDetector.Configuration()
    configuration.maxObjects = 3
    let detector = RetainCycleDetector(configuration: configuration)
    detector.addCandidate(nodes[0])
    _ = detector.findRetainCycles()
    let records = detector.lastSnapshot?.metadata.diagnosticRecords ?? []
    XCTAssertEqual(records.first?.kind, .captureFailed, "\(records)")
    XCTAssertEqual(records.first?.count, 1)
    XCTAssertEqual(records.filter { $0.kind == .objectLimit }.map(\.count), [3], "\(records)")
    XCTAssertEqual(records, detector.diagnostics)
  }

  func testCapture_leavesTheCapturedObjectsReferenceCountsAsTheyWere() {
    let start = twoNodeCycle()
    let addresses = [address(of: start), address(of: start.next!)]
    let before = addresses.map(cleak_strong_retain_count)
    _ = RetainCycleDetector.cycles(from: start)
    _ = AllocationTracker.snapshot()
    XCTAssertEqual(addresses.map(cleak_strong_retain_count), before)
  }

  func testCapture_stopsAtMaxObjects_withOneDiagnostic() {
    let nodes = (0..<10).map { escaping(Node("\($0)")) }
    for (node, next) in zip(nodes, nodes.dropFirst()) { node.children = [next, next] }
    var configuration = RetainCycleDetector.Configuration()
    configuration.maxObjects = 3
    let detector = RetainCycleDetector(configuration: configuration)
    detector.addCandidate(nodes[0])
    _ = detector.findRetainCycles()
    XCTAssertEqual(detector.lastSnapshot?.objectCount, 3)
    XCTAssertEqual(
      detector.diagnostics.filter { $0.kind == .objectLimit }.map(\.description),
      ["the search stopped after 3 objects (Configuration.maxObjects)"])
  }

  func testDictionaryKeys_longAndShortStrings_nameTheirEntries() {
    let parent = escaping(Node("parent"))
    let long = String(repeating: "long-key-", count: 10)
    parent.byName["kid"] = escaping(Node("kid"))
    parent.byName[long] = escaping(Node("other"))
    let labels = references(of: parent).map(\.label).filter { $0.hasPrefix("byName[") }.sorted()
    XCTAssertEqual(labels, ["byName[\"kid\"]", "byName[\"\(long.prefix(64))…\"]"])
  }

  /// A read in a capture child that faults anyway (here the page is unmapped after the child read
  /// the mappings, so the check still calls it readable) fails and the child goes on.
  func testChild_readThatFaults_failsInsteadOfEndingTheChild() throws {
    let page = try XCTUnwrap(mmap(nil, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
    defer { munmap(page, 4096) }
    let address = UInt(bitPattern: page)
    let outcome = CaptureProcess(limits: CaptureLimits(attempts: 1)).run(
      in: { _ in
        let readableFirst = cleak_is_readable(address, 8)  // the child reads the mappings, page included
        munmap(page, 4096)
        var word: UInt = 0
        let copied = cleak_read_memory(&word, address, 8)
        return [readableFirst ? 1 : 0, copied < 0 ? 1 : 0, cleak_is_readable(address, 8) ? 1 : 0]
      }, decode: { $0 })
    XCTAssertEqual(outcome.diagnostics, [], "the child was not killed")
    XCTAssertEqual(outcome.result, [1, 1, 1], "readable by the check, yet the read failed without a crash")
  }
}
