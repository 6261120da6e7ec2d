import Dispatch
import Foundation
import LeakDetector
import LeakTestSupport
import XCTest

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The leak idioms of Documentation/LeakIdioms.md (P-ids are its library retention patterns),
/// each with its verdict: CYCLE (the exact cycle), TRANSIENT (a cycle while pending, none after
/// the breaking event, and the never-breaks variant), ROOTED and SAFE (no cycle; SAFE also frees
/// everything on teardown). Foundation-backed variants assert what the detector can see through
/// stored properties, and use its escape hatches (reference providers) for retention that lives
/// in libdispatch or behind `Unmanaged` pointers.
///
/// Cycles are compared in their normalized form (`normalized(_:)`). Where the shape of a closure
/// depends on the optimizer (a closure capturing a single object uses that object as its context;
/// a closure stored in a generic container may sit behind a reabstraction thunk), the expected
/// cycle allows both shapes, and nothing else.
final class ScenarioTests: XCTestCase {
  static let imageURL = "https://example.com/a.png"

  // MARK: - SD-1

  func testScenarioSD1_weakStrongDance_findsNoCycle() throws {
    var survivors: [ScenarioWeak] = []
    do {
      let view = SD1ImageView.make()
      view.setImageWithWeakSelf(Self.imageURL)
      let operation = try XCTUnwrap(view.currentOperation)
      XCTAssertEqual(scenarioCycles(from: [view]), [])
      XCTAssertTrue(scenarioReaches(view, operation), "the side table holds the operation")
      survivors = [ScenarioWeak(view), ScenarioWeak(operation), ScenarioWeak(view.operationTable)]
      operation.finish()
      XCTAssertEqual(view.loads, 1)
      XCTAssertEqual(view.image?.url, Self.imageURL)
    }
    XCTAssertFalse(survivors.contains { $0.isAlive }, "nothing survives teardown")
  }

  func testScenarioSD1_strongCapture_isACycleThroughTheSideTableUntilTheOperationIsRemoved() throws {
    var survivors: [ScenarioWeak] = []
    do {
      let view = SD1ImageView.make()
      view.setImageWithStrongSelf(Self.imageURL)
      let operation = try XCTUnwrap(view.currentOperation)
      let cycles = scenarioCycles(from: [view])
      XCTAssertEqual(cycles.count, 1, "\(cycles)")
      XCTAssertTrue(cycles.allSatisfy { scenarioCycle($0, matches: Self.sd1Cycle, closing: "SD1ImageView") }, "\(cycles)")
      operation.finish()  // the completion removes the finished operation from the side table
      XCTAssertNil(view.currentOperation)
      XCTAssertEqual(scenarioCycles(from: [view]), [])
      survivors = [ScenarioWeak(view), ScenarioWeak(operation)]
    }
    XCTAssertFalse(survivors.contains { $0.isAlive })
  }

  func testScenarioSD1_strongCapture_cancellingTheLoadBreaksTheCycle() {
    let view = escaping(SD1ImageView.make())
    view.setImageWithStrongSelf(Self.imageURL)
    XCTAssertEqual(scenarioCycles(from: [view]).count, 1)
    view.cancelCurrentImageLoad()
    XCTAssertEqual(scenarioCycles(from: [view]), [])
  }

  func testScenarioSD1_strongCapture_sideTableKeepingFinishedOperations_isAPermanentCycle() throws {
    let view = escaping(SD1ImageView.make())
    view.removesFinishedOperations = false
    view.setImageWithStrongSelf(Self.imageURL)
    try XCTUnwrap(view.currentOperation).finish()
    let cycles = scenarioCycles(from: [view])
    XCTAssertEqual(cycles.count, 1, "\(cycles)")
    XCTAssertTrue(cycles.allSatisfy { scenarioCycle($0, matches: Self.sd1Cycle, closing: "SD1ImageView") }, "\(cycles)")
  }

  static let sd1Cycle: [ScenarioStep] = [
    .edge("SD1ImageView.associated[\"operations\"]"),
    .edge("SD1OperationTable.operations[\"SD1ImageView\"]"),
    .tupleElement("SD1LoadOperation.callbacks[0]", index: 1, label: "completed"),
    .optionalThunk,
    .optionalClosure("closure #1 in SD1ImageView.setImageWithStrongSelf", capturing: "SD1ImageView"),
  ]

  // MARK: - SD-3

  func testScenarioSD3_weakDownloaderAndOperation_findsNoCycle() {
    var survivors: [ScenarioWeak] = []
    do {
      let downloader = SD3ImageDownloader.make()
      let operation = downloader.downloadWithWeakCaptures(Self.imageURL)
      XCTAssertEqual(scenarioCycles(from: [downloader]), [])
      XCTAssertEqual(scenarioCycles(from: [operation]), [])
      operation.finish()
      XCTAssertTrue(downloader.urlOperations.isEmpty)
      survivors = [ScenarioWeak(downloader), ScenarioWeak(operation)]
    }
    XCTAssertFalse(survivors.contains { $0.isAlive })
  }

  func testScenarioSD3_strongDownloaderWeakOperation_isTransient() {
    var survivors: [ScenarioWeak] = []
    do {
      let downloader = SD3ImageDownloader.make()
      let operation = downloader.downloadCapturingDownloader(Self.imageURL)
      let cycles = scenarioCycles(from: [downloader])
      XCTAssertEqual(cycles.count, 1, "\(cycles)")
      XCTAssertTrue(cycles.allSatisfy { scenarioCycle($0, matches: Self.sd3CycleA, closing: "SD3DownloadOperation") }, "\(cycles)")
      operation.finish()  // removes the operation from `urlOperations`
      XCTAssertEqual(scenarioCycles(from: [downloader]), [])
      XCTAssertEqual(scenarioCycles(from: [operation]), [], "the block stays (P6) but nothing points back at the operation")
      survivors = [ScenarioWeak(downloader), ScenarioWeak(operation)]
    }
    XCTAssertFalse(survivors.contains { $0.isAlive })
  }

  func testScenarioSD3_strongDownloaderWeakOperation_neverFinishing_isACycle() {
    let downloader = escaping(SD3ImageDownloader.make())
    _ = downloader.downloadCapturingDownloader(Self.imageURL)
    downloader.downloadCapturingDownloader("https://example.com/b.png").finish()
    let cycles = scenarioCycles(from: [downloader])
    XCTAssertEqual(cycles.count, 1, "\(cycles)")
    XCTAssertTrue(cycles.allSatisfy { scenarioCycle($0, matches: Self.sd3CycleA, closing: "SD3DownloadOperation") }, "\(cycles)")
  }

  func testScenarioSD3_blockCapturingItsOwnOperation_isAPermanentSelfLoop() {
    let downloader = escaping(SD3ImageDownloader.make())
    let operation = downloader.downloadCapturingOperation(Self.imageURL)
    let expected: [ScenarioStep] = [
      .edge("SD3DownloadOperation.completionBlock"),
      .closure("closure #1 in SD3ImageDownloader.downloadCapturingOperation", capturing: "SD3DownloadOperation"),
    ]
    for moment in ["pending", "finished"] {
      if moment == "finished" {
        operation.finish()
        XCTAssertEqual(operation.checks, 1)
        XCTAssertTrue(downloader.urlOperations.isEmpty)
      }
      let cycles = scenarioCycles(from: [operation])
      XCTAssertEqual(cycles.count, 1, "\(moment): \(cycles)")
      XCTAssertTrue(cycles.allSatisfy { scenarioCycle($0, matches: expected, closing: "SD3DownloadOperation") }, "\(moment): \(cycles)")
    }
  }

  static let sd3CycleA: [ScenarioStep] = [
    .edge("SD3DownloadOperation.completionBlock"),
    .closure("closure #1 in SD3ImageDownloader.downloadCapturingDownloader", capturing: "SD3ImageDownloader"),
    .edge("SD3ImageDownloader.urlOperations[\"\(imageURL)\"]"),
  ]

  /// The Foundation operation's completion block lives in a corelibs field (`__completion` in
  /// Swift 6.3.1); the assertions accept any field name there.
  static let sd3FoundationCycleA: [ScenarioStep] = [
    .pattern("SD3FoundationDownloadOperation\\.\\S+"),
    .closure("closure #1 in SD3FoundationDownloader.downloadCapturingDownloader", capturing: "SD3FoundationDownloader"),
    .pattern("SD3FoundationDownloader\\.\\S*urlOperations\\[\"" + NSRegularExpression.escapedPattern(for: imageURL) + "\"\\]"),
  ]

  func testScenarioSD3_foundationOperation_weakCaptures_findsNoCycle() {
    var survivors: [ScenarioWeak] = []
    do {
      let downloader = SD3FoundationDownloader.make()
      let operation = downloader.downloadWithWeakCaptures(Self.imageURL)
      XCTAssertEqual(scenarioCycles(from: [downloader]), [])
      operation.start()  // runs the completion block asynchronously
      XCTAssertTrue(scenarioWait { downloader.completions == 1 && downloader.urlOperations.isEmpty })
      survivors = [ScenarioWeak(downloader), ScenarioWeak(operation)]
    }
    XCTAssertTrue(scenarioWait { !survivors.contains { $0.isAlive } }, "nothing survives teardown")
  }

  func testScenarioSD3_foundationOperation_strongDownloader_isTransient() {
    var survivors: [ScenarioWeak] = []
    do {
      let downloader = SD3FoundationDownloader.make()
      let operation = downloader.downloadCapturingDownloader(Self.imageURL)
      let cycles = scenarioCycles(from: [downloader])
      XCTAssertEqual(cycles.count, 1, "\(cycles)")
      XCTAssertTrue(
        cycles.allSatisfy { scenarioCycle($0, matches: Self.sd3FoundationCycleA, closing: "SD3FoundationDownloadOperation") }, "\(cycles)")
      operation.start()
      XCTAssertTrue(scenarioWait { downloader.completions == 1 })
      XCTAssertEqual(scenarioCycles(from: [downloader]), [])
      survivors = [ScenarioWeak(downloader), ScenarioWeak(operation)]
    }
    XCTAssertTrue(scenarioWait { !survivors.contains { $0.isAlive } })
  }

  func testScenarioSD3_foundationOperation_strongDownloader_neverStarted_isACycle() {
    let downloader = escaping(SD3FoundationDownloader.make())
    _ = downloader.downloadCapturingDownloader(Self.imageURL)
    let cycles = scenarioCycles(from: [downloader])
    XCTAssertEqual(cycles.count, 1, "\(cycles)")
    XCTAssertTrue(
      cycles.allSatisfy { scenarioCycle($0, matches: Self.sd3FoundationCycleA, closing: "SD3FoundationDownloadOperation") }, "\(cycles)")
  }

  func testScenarioSD3_foundationOperation_blockCapturingItsOperation_survivesCompletion() {
    let downloader = escaping(SD3FoundationDownloader.make())
    let operation = downloader.downloadCapturingOperation(Self.imageURL)
    let expected: [ScenarioStep] = [
      .pattern("SD3FoundationDownloadOperation\\.\\S+"),
      .closure("closure #1 in SD3FoundationDownloader.downloadCapturingOperation", capturing: "SD3FoundationDownloadOperation"),
    ]
    XCTAssertTrue(
      scenarioCycles(from: [operation]).allSatisfy { scenarioCycle($0, matches: expected, closing: "SD3FoundationDownloadOperation") })
    operation.start()
    XCTAssertTrue(scenarioWait { downloader.completions == 1 })
    XCTAssertNotNil(operation.completionBlock, "P6: corelibs keeps the completion block after it ran")
    let cycles = scenarioCycles(from: [operation])
    XCTAssertEqual(cycles.count, 1, "\(cycles)")
    XCTAssertTrue(cycles.allSatisfy { scenarioCycle($0, matches: expected, closing: "SD3FoundationDownloadOperation") }, "\(cycles)")
  }

  /// P8: a queued operation is held by its queue through `Unmanaged.passRetained` pointers, a
  /// `{rt:}` edge. Reflection sees them as unmanaged; the detector knows they retain.
  func testScenarioSD3_operationQueueHoldsOperationsUnmanaged_detectorKnowsTheyRetain() {
    let downloader = escaping(SD3FoundationDownloader.make())
    let operation = downloader.enqueueCapturingDownloader(Self.imageURL)
    defer { downloader.downloadQueue.cancelAllOperations() }

    // What reflection sees: the queue refers to the operation, but not as a strong reference.
    let queueReferences = references(of: downloader.downloadQueue).filter { $0.targetAddress == address(of: operation) }
    XCTAssertFalse(queueReferences.isEmpty, "the queue's op list is visible")
    XCTAssertFalse(queueReferences.contains { $0.ownership == .strong }, "\(queueReferences)")
    // The detector treats the queue's retained links as strong edges: the cycle is found as is.
    // (Each pending operation also forms a cycle inside Foundation with its scheduling work item.)
    let known = scenarioCycles(from: [downloader]).filter { $0.contains("SD3FoundationDownloader") }
    XCTAssertEqual(known.count, 1, "\(known)")
    XCTAssertTrue(known[0].contains("Foundation.OperationQueue.__firstOperation._value -> SD3FoundationDownloadOperation"), "\(known)")

    // A provider declaring the queue's retention in its own words closes the same cycle.
    let cycles = scenarioCycles(from: [downloader], configuration: ScenarioOperationQueues.configuration).filter {
      $0.contains("SD3FoundationDownloader")
    }
    XCTAssertEqual(cycles.count, 1, "\(cycles)")
    // Parallel edges (declared and known) merge under the smaller label.
    let expected: [ScenarioStep] = [
      .edge("Foundation.OperationQueue.__firstOperation._value"),
      .pattern("SD3FoundationDownloadOperation\\.\\S+"),
      .closure("closure #1 in SD3FoundationDownloader.enqueueCapturingDownloader", capturing: "SD3FoundationDownloader"),
      .edge("SD3FoundationDownloader.downloadQueue"),
    ]
    XCTAssertTrue(cycles.allSatisfy { scenarioCycle($0, matches: expected, closing: "Foundation.OperationQueue") }, "\(cycles)")
  }

  // MARK: - SD-4

  func testScenarioSD4_downloaderStoringTheSessionItDelegates_isACycleUntilInvalidated() {
    var survivors: [ScenarioWeak] = []
    do {
      let downloader = SD4ImageDownloader.make()
      XCTAssertEqual(scenarioCycles(from: [downloader]), ["SD4FakeSession.delegate -> SD4ImageDownloader.session -> SD4FakeSession"])
      downloader.session.invalidateAndCancel()
      XCTAssertEqual(scenarioCycles(from: [downloader]), [])
      survivors = [ScenarioWeak(downloader), ScenarioWeak(downloader.session)]
    }
    XCTAssertFalse(survivors.contains { $0.isAlive })
  }

  func testScenarioSD4_unstoredSessionPerRequest_isTransientWhileItsTaskIsRegistered() {
    var survivors: [ScenarioWeak] = []
    do {
      let urlProtocol = SD4URLProtocol.make()
      var task: SD4FakeTask? = urlProtocol.startLoading()
      let session = ScenarioWeak(task?.session)
      XCTAssertEqual(scenarioCycles(from: [urlProtocol]), [], "the protocol object is not in a cycle")
      XCTAssertEqual(scenarioCycles(from: [task!]), ["SD4FakeSession.tasks[1] -> SD4FakeTask.session -> SD4FakeSession"])
      XCTAssertTrue(scenarioReaches(task!, urlProtocol), "the session↔task cycle keeps the delegate alive")
      (session.object as? SD4FakeSession)?.complete(task!)
      XCTAssertEqual(urlProtocol.completed, 1)
      XCTAssertEqual(scenarioCycles(from: [task!]), [])
      task = nil
      XCTAssertFalse(session.isAlive, "the session dies with its last task")
      survivors = [ScenarioWeak(urlProtocol), session]
    }
    XCTAssertFalse(survivors.contains { $0.isAlive })
  }

  func testScenarioSD4_unstoredSessionPerRequest_neverCompleting_isACycle() {
    let urlProtocol = escaping(SD4URLProtocol.make())
    let task = urlProtocol.startLoading()
    XCTAssertEqual(scenarioCycles(from: [task]), ["SD4FakeSession.tasks[1] -> SD4FakeTask.session -> SD4FakeSession"])
  }

  func testScenarioSD4_foundationSessionDelegate_isACycleUntilInvalidated() {
    var survivors: [ScenarioWeak] = []
    do {
      let downloader = SD4FoundationDownloader.make()
      let cycles = scenarioCycles(from: [downloader])
      XCTAssertEqual(cycles.count, 1, "\(cycles)")
      let expected: [ScenarioStep] = [
        .pattern("FoundationNetworking\\.URLSession\\.\\S*delegate"), .edge("SD4FoundationDownloader.session"),
      ]
      XCTAssertTrue(cycles.allSatisfy { scenarioCycle($0, matches: expected, closing: "FoundationNetworking.URLSession") }, "\(cycles)")
      downloader.session.invalidateAndCancel()  // P2: clears `delegate`, asynchronously
      XCTAssertTrue(scenarioWait { downloader.session.delegate == nil })
      XCTAssertEqual(scenarioCycles(from: [downloader]), [])
      survivors = [ScenarioWeak(downloader)]
    }
    XCTAssertTrue(scenarioWait { !survivors.contains { $0.isAlive } })
  }

  /// The OHHTTPStubs form on corelibs: the unstored session lives through its by-design
  /// session↔task cycle (P3), and dies with its last task (P2). A `data:` URL completes locally.
  func testScenarioSD4_foundationUnstoredSessionPerRequest_isTransient() {
    var survivors: [ScenarioWeak] = []
    do {
      let urlProtocol = SD4FoundationURLProtocol.make()
      let task = urlProtocol.startLoading(URL(string: "data:text/plain,hello")!)
      XCTAssertEqual(scenarioCycles(from: [urlProtocol]), [])
      XCTAssertTrue(scenarioWait { Self.isRegistered(task) }, "corelibs registers a new task asynchronously, on its work queue")
      let cycles = scenarioCycles(from: [task])
      XCTAssertTrue(cycles.contains { $0.contains("_TaskRegistry.tasks[") && $0.contains("URLSessionDataTask.session") }, "\(cycles)")
      XCTAssertTrue(scenarioReaches(task, urlProtocol), "the session's delegate is alive while the task is registered")
      task.resume()
      XCTAssertTrue(scenarioWait { task.state == .completed })
      XCTAssertTrue(scenarioWait { scenarioCycles(from: [task]).isEmpty }, "\(scenarioCycles(from: [task]))")
      survivors = [ScenarioWeak(urlProtocol), ScenarioWeak(task)]
    }
    XCTAssertTrue(scenarioWait { !survivors.contains { $0.isAlive } })
  }

  /// Whether the by-design `URLSession.taskRegistry → task → session` cycle (P3) is there yet,
  /// and with `withHandler` the one through the task's completion handler: the registry stores
  /// the task and its handler one after the other, so a capture can fall between the two.
  static func isRegistered(_ task: URLSessionTask, withHandler: Bool = false) -> Bool {
    let cycles = scenarioCycles(from: [task])
    return cycles.contains { $0.contains("_TaskRegistry.tasks[") }
      && (!withHandler || cycles.contains { $0.contains("_TaskRegistry.behaviours[") })
  }

  // MARK: - YTK-1

  static let ytk1Cycle: [ScenarioStep] = [
    .edge("YTK1FakeTask.completion"),
    .closure("closure #1 in YTK1NetworkAgent.startRequest()", capturing: "box<YTK1FakeTask?>"),
    .edge("box<Swift.Optional<YTK1FakeTask>>.value"),
  ]

  func testScenarioYTK1_capturedVarTask_isACycleThroughTheBoxUntilTheTaskFinishes() {
    var survivors: [ScenarioWeak] = []
    do {
      let agent = YTK1NetworkAgent.make()
      let task = agent.startRequest()
      let cycles = scenarioCycles(from: [task])
      XCTAssertEqual(cycles.count, 1, "\(cycles)")
      XCTAssertTrue(cycles.allSatisfy { scenarioCycle($0, matches: Self.ytk1Cycle, closing: "YTK1FakeTask") }, "\(cycles)")
      XCTAssertEqual(scenarioCycles(from: [agent]), [], "the agent has no back edge")
      task.finish()
      XCTAssertEqual(agent.handled, 1)
      XCTAssertEqual(scenarioCycles(from: [task]), [])
      survivors = [ScenarioWeak(agent), ScenarioWeak(task)]
    }
    XCTAssertFalse(survivors.contains { $0.isAlive })
  }

  func testScenarioYTK1_capturedVarTask_neverCompleted_isACycleThatKeepsTheAgentAlive() {
    let agent = escaping(YTK1NetworkAgent.make())
    let task = agent.startRequest()
    let cycles = scenarioCycles(from: [task])
    XCTAssertEqual(cycles.count, 1, "\(cycles)")
    XCTAssertTrue(cycles.allSatisfy { scenarioCycle($0, matches: Self.ytk1Cycle, closing: "YTK1FakeTask") }, "\(cycles)")
    XCTAssertTrue(scenarioReaches(task, agent))
  }

  /// P3: on corelibs the handler hangs off the session's task registry, not the task.
  func testScenarioYTK1_foundationDataTask_capturedVarBox_isTransient() {
    var survivors: [ScenarioWeak] = []
    do {
      let agent = YTK1NetworkAgent.make()
      let session = URLSession(configuration: .ephemeral)
      let task = agent.startRequest(on: session, url: URL(string: "data:text/plain,hello")!)
      XCTAssertTrue(
        scenarioWait { Self.isRegistered(task, withHandler: true) }, "corelibs registers a new task asynchronously, on its work queue")
      let cycles = scenarioCycles(from: [task])
      XCTAssertTrue(
        cycles.contains {
          $0.contains("_TaskRegistry.behaviours[")
            && $0.contains("closure #1 in YTK1NetworkAgent.startRequest(on:")
            && $0.contains(
              "box<URLSessionDataTask?> -> box<Swift.Optional<FoundationNetworking.URLSessionDataTask>>.value -> FoundationNetworking.URLSessionDataTask."
            )
        }, "the handler's captured var box closes a cycle: \(cycles)")
      XCTAssertTrue(cycles.contains { $0.contains("_TaskRegistry.tasks[") }, "the by-design session↔task cycle: \(cycles)")
      XCTAssertTrue(scenarioReaches(task, agent))
      task.resume()
      XCTAssertTrue(scenarioWait { agent.handled == 1 })
      XCTAssertTrue(scenarioWait { scenarioCycles(from: [task]).isEmpty }, "\(scenarioCycles(from: [task]))")
      survivors = [ScenarioWeak(agent), ScenarioWeak(task), ScenarioWeak(session)]
    }
    XCTAssertTrue(scenarioWait { !survivors.contains { $0.isAlive } }, "P2/P3: the completed task, its session and the agent are freed")
  }

  func testScenarioYTK1_foundationDataTask_neverResumed_isACycle() {
    let agent = escaping(YTK1NetworkAgent.make())
    let session = URLSession(configuration: .ephemeral)
    let task = escaping(agent.startRequest(on: session, url: URL(string: "data:text/plain,hello")!))
    XCTAssertTrue(
      scenarioWait { Self.isRegistered(task, withHandler: true) }, "corelibs registers a new task asynchronously, on its work queue")
    let cycles = scenarioCycles(from: [task])
    XCTAssertTrue(cycles.contains { $0.contains("box<URLSessionDataTask?>") }, "\(cycles)")
    XCTAssertTrue(scenarioReaches(task, agent))
  }

  // MARK: - YTK-3

  func testScenarioYTK3_chainWithWeakDelegates_findsNoCycle() {
    var survivors: [ScenarioWeak] = []
    do {
      let chain = YTK3ChainRequest.make()
      let requests = (0..<3).map { YTK3BaseRequest(path: "/step\($0)") }
      for request in requests { chain.add(request) }
      chain.start()
      XCTAssertEqual(scenarioCycles(from: [chain]), [])
      XCTAssertEqual(scenarioCycles(from: [YTK3ChainRequestAgent.shared]), [])
      XCTAssertTrue(scenarioReaches(YTK3ChainRequestAgent.shared, chain), "ROOTED by the agent while in flight")
      for request in requests { chain.requestFinished(request) }
      XCTAssertFalse(YTK3ChainRequestAgent.shared.chains.contains { $0 === chain })
      survivors = [ScenarioWeak(chain)] + requests.map(ScenarioWeak.init)
    }
    XCTAssertFalse(survivors.contains { $0.isAlive })
  }

  func testScenarioYTK3_strongDelegates_areOneTwoCyclePerStepSharingTheChain() {
    let chain = escaping(YTK3ChainRequest.make())
    for index in 0..<3 { chain.add(YTK3StrongDelegateRequest(path: "/step\(index)")) }
    let cycles = scenarioCycles(from: [chain])
    XCTAssertEqual(cycles.count, 3, "\(cycles)")
    for index in 0..<3 {
      let expected: [ScenarioStep] = [
        .tupleElement("YTK3ChainRequest.steps[\(index)]", index: 0, label: "request"), .edge("YTK3StrongDelegateRequest.delegate"),
      ]
      XCTAssertEqual(cycles.filter { scenarioCycle($0, matches: expected, closing: "YTK3ChainRequest") }.count, 1, "\(cycles)")
    }
    let detector = RetainCycleDetector()
    detector.addCandidate(chain)
    let report = detector.findRetainCycleReport()
    XCTAssertEqual(report.components.map(\.objectCount), [4], "one component: the chain and its three requests")
    XCTAssertEqual(report.foundCycleCount, 3)
  }

  func testScenarioYTK3_callbackCapturingTheChain_isASelfLoopThroughTheClosure() {
    let chain = escaping(YTK3ChainRequest.makeSelfCapturingChain())
    let cycles = scenarioCycles(from: [chain])
    XCTAssertEqual(cycles.count, 1, "\(cycles)")
    let expected: [ScenarioStep] = [
      .tupleElement("YTK3ChainRequest.steps[0]", index: 1, label: "callback"), .optionalThunk,
      .optionalClosure("closure #1 in static YTK3ChainRequest.makeSelfCapturingChain()", capturing: "YTK3ChainRequest"),
    ]
    XCTAssertTrue(cycles.allSatisfy { scenarioCycle($0, matches: expected, closing: "YTK3ChainRequest") }, "\(cycles)")
  }

  // MARK: - DD-2

  static let dd2Cycle: [ScenarioStep] = [
    .edge("DD2FakeTimerSource.eventHandler"),
    .optionalClosure("closure #1 in DD2FileLogger.scheduleTimerToRollLogFileDueToAge()", capturing: "DD2FileLogger"),
    .edge("DD2FileLogger.rollingTimer"),
  ]

  func testScenarioDD2_timerHandlerCapturingTheLogger_isACycleUntilCancelled() {
    var survivors: [ScenarioWeak] = []
    do {
      let logger = DD2FileLogger.make()
      logger.scheduleTimerToRollLogFileDueToAge()
      let cycles = scenarioCycles(from: [logger])
      XCTAssertEqual(cycles.count, 1, "\(cycles)")
      XCTAssertTrue(cycles.allSatisfy { scenarioCycle($0, matches: Self.dd2Cycle, closing: "DD2FakeTimerSource") }, "\(cycles)")
      logger.stopRolling()
      XCTAssertEqual(scenarioCycles(from: [logger]), [])
      survivors = [ScenarioWeak(logger)]
    }
    XCTAssertFalse(survivors.contains { $0.isAlive })
  }

  func testScenarioDD2_timerHandlerNeverCancelled_staysACycleAfterFiring() {
    let logger = escaping(DD2FileLogger.make())
    logger.scheduleTimerToRollLogFileDueToAge()
    logger.rollingTimer?.fire()
    logger.rollingTimer?.fire()
    XCTAssertEqual(logger.rollChecks, 2)
    let cycles = scenarioCycles(from: [logger])
    XCTAssertEqual(cycles.count, 1, "\(cycles)")
    XCTAssertTrue(cycles.allSatisfy { scenarioCycle($0, matches: Self.dd2Cycle, closing: "DD2FakeTimerSource") }, "\(cycles)")
  }

  func testScenarioDD2_weakHandler_findsNoCycle() {
    var survivors: [ScenarioWeak] = []
    do {
      let logger = DD2FileLogger.make()
      logger.scheduleWeakTimer()
      XCTAssertEqual(scenarioCycles(from: [logger]), [])
      logger.rollingTimer?.fire()
      XCTAssertEqual(logger.rollChecks, 1)
      survivors = [ScenarioWeak(logger), ScenarioWeak(logger.rollingTimer)]
    }
    XCTAssertFalse(survivors.contains { $0.isAlive })
  }

  /// P5: the handler lives in libdispatch's C memory (an `{rt:}` edge): reflection sees the
  /// source, not its handler. The `ScenarioDispatchHandlers` hook declares it.
  func testScenarioDD2_foundationDispatchSource_handlerIsACycleUntilCancelled() throws {
    try skipWhereThreadSanitizerWrapsDispatchBlocks()
    var survivors: [ScenarioWeak] = []
    do {
      let logger = DD2FoundationFileLogger.make()
      logger.scheduleTimerToRollLogFileDueToAge()
      let timer = logger.rollingTimer! as AnyObject
      // Visible: the stored property to the source object.
      XCTAssertTrue(
        references(of: logger).contains {
          $0.label == "rollingTimer" && $0.ownership == .strong && $0.targetAddress == address(of: timer)
            && unqualified($0.targetTypeName) == "Dispatch.DispatchSource"
        }, "\(summary(references(of: logger)))")
      // The source's event handler, which libdispatch keeps, is read as the source's edge.
      XCTAssertTrue(scenarioReaches(timer, logger))
      XCTAssertEqual(
        scenarioCycles(from: [logger]),
        [
          "DD2FoundationFileLogger.rollingTimer -> Dispatch.DispatchSource.event handler"
            + " -> closure #1 in DD2FoundationFileLogger.scheduleTimerToRollLogFileDueToAge().capture #0: DD2FoundationFileLogger"
            + " -> DD2FoundationFileLogger"
        ])
      logger.stopRolling()
      XCTAssertTrue(scenarioWait { scenarioCycles(from: [logger]).isEmpty }, "libdispatch releases a cancelled source's handlers")
      survivors = [ScenarioWeak(logger), ScenarioWeak(timer)]
    }
    XCTAssertTrue(scenarioWait { !survivors.contains { $0.isAlive } }, "P5: cancel() releases the handler")
  }

  func testScenarioDD2_foundationDispatchSource_weakHandler_findsNoCycle() {
    var survivors: [ScenarioWeak] = []
    do {
      let logger = DD2FoundationFileLogger.make()
      logger.scheduleWeakTimer()
      XCTAssertEqual(scenarioCycles(from: [logger], configuration: ScenarioDispatchHandlers.configuration), [])
      survivors = [ScenarioWeak(logger)]
    }
    XCTAssertTrue(scenarioWait { !survivors.contains { $0.isAlive } })
  }

  // MARK: - FB-1

  func testScenarioFB1_selfLoopThroughAnyObject_isACycleOfLengthOne() {
    let object = escaping(FB1RCDTestClass.make())
    object.object = object
    XCTAssertEqual(scenarioCycles(from: [object]), ["FB1RCDTestClass.object -> FB1RCDTestClass"])
  }

  func testScenarioFB1_selfLoopThroughConcreteType_isACycleOfLengthOne() {
    let object = escaping(FB1TypedTestClass.make())
    object.object = object
    XCTAssertEqual(scenarioCycles(from: [object]), ["FB1TypedTestClass.object -> FB1TypedTestClass"])
  }

  // MARK: - FB-2

  static let fb2Cycles: Set<String> = [
    "FB2TestObject.object -> FB2TestObject.secondObject -> FB2TestObject",
    "FB2TestObject.object -> FB2TestObject.object -> FB2TestObject.object -> FB2TestObject",
    "FB2TestObject.object -> FB2TestObject.secondObject -> FB2TestObject.secondObject -> FB2TestObject",
  ]

  func testScenarioFB2_sevenObjects_haveExactlyThreeCyclesFromEveryRoot() {
    let objects = FB2TestObject.makeGraph()
    fixtureSink += objects
    for (index, root) in objects.enumerated() {
      let cycles = scenarioCycles(from: [root])
      if index == 5 {
        XCTAssertEqual(cycles, [], "testObject6 has no outgoing reference")
      } else {
        XCTAssertEqual(cycles.count, 3, "root #\(index + 1): \(cycles)")
        XCTAssertEqual(Set(cycles), Self.fb2Cycles, "root #\(index + 1)")
      }
    }
    XCTAssertEqual(scenarioCycles(from: objects).count, 3, "all seven candidates: each cycle once")
  }

  func testScenarioFB2_sevenObjects_cycleMembersAreTheExpectedObjects() {
    let objects = FB2TestObject.makeGraph()
    fixtureSink += objects
    let members = Set(
      RetainCycleDetector.cycles(from: objects[0]).map { cycle in
        Set(cycle.elements.compactMap { element in objects.firstIndex { UInt64(address(of: $0)) == element.address }.map { $0 + 1 } })
      })
    XCTAssertEqual(members, [[1, 3], [1, 2, 4], [2, 5, 7]])
    XCTAssertTrue(scenarioReaches(objects[0], objects[5]), "testObject6 is kept alive by C3 without being a member")
  }

  // MARK: - FB-3

  func testScenarioFB3_mixedCaptures_onlyTheStrongHolderCaptureClosesTheCycle() throws {
    let holder = escaping(FB3Holder.make())
    let third = escaping(FB3Other())
    FB3Binder.bindMixed(holder, second: holder, third: third)  // `second` (weak) is the holder too
    holder.action?()
    XCTAssertEqual(holder.touches, 2)
    let cycles = scenarioCycles(from: [holder])
    XCTAssertEqual(cycles.count, 1, "\(cycles)")
    let expected: [ScenarioStep] = [
      .edge("FB3Holder.action"), .closure("closure #1 in static FB3Binder.bindMixed", capturing: "FB3Holder"),
    ]
    XCTAssertTrue(cycles.allSatisfy { scenarioCycle($0, matches: expected, closing: "FB3Holder") }, "\(cycles)")
    // The closure's captures, by type and strength: the weak one is no edge; `third` is an edge
    // outside the cycle.
    // (A weak capture may sit in the context itself, or in a box the context holds strongly.)
    let context = try XCTUnwrap(LiveObject(references(of: holder).first { $0.label == "action" })).references
    let captures = try context.flatMap { capture in
      capture.targetKind == .box ? try XCTUnwrap(LiveObject(capture)).references : [capture]
    }
    XCTAssertEqual(
      captures.map { "\(unqualified($0.targetTypeName)) \($0.ownership.rawValue)" }.sorted(),
      ["FB3Holder strong", "FB3Holder weak", "FB3Other strong"],
      "\(summary(context))")
    XCTAssertTrue(scenarioReaches(holder, third))
  }

  func testScenarioFB3_allHolderCapturesWeak_findsNoCycle() {
    var survivors: [ScenarioWeak] = []
    do {
      let holder = FB3Holder.make()
      let third = FB3Other()
      FB3Binder.bindAllWeakHolders(holder, second: holder, third: third)
      XCTAssertEqual(scenarioCycles(from: [holder]), [])
      survivors = [ScenarioWeak(holder), ScenarioWeak(third)]
    }
    XCTAssertFalse(survivors.contains { $0.isAlive })
  }

  // MARK: - FB-4

  func testScenarioFB4_referencesInStructFields_formCycles() {
    let transfer = escaping(FB4Transfer.make())
    let cycles = scenarioCycles(from: [transfer])
    XCTAssertTrue(cycles.contains("FB4Node.transfer -> FB4Transfer.endpoints.sink -> FB4Node"), "\(cycles)")
    XCTAssertTrue(cycles.contains("FB4Node.transfer -> FB4Transfer.endpoints.source -> FB4Node"), "\(cycles)")
    XCTAssertFalse(cycles.contains { $0.contains("retries") })
    // The optional tuple is unwrapped: both hops are references, `to` is the sink.
    let hops = references(of: transfer).filter { $0.label.hasPrefix("lastHop.") }
    XCTAssertEqual(hops.count, 2, "\(summary(hops))")
    XCTAssertTrue(hops.allSatisfy { $0.ownership == .strong })
    XCTAssertTrue(
      hops.contains { $0.targetAddress == address(of: transfer.endpoints.sink) && ["lastHop.1", "lastHop.to"].contains($0.label) })
  }

  func testScenarioFB4_referenceInAnOptionalTuple_formsACycle() {
    let transfer = escaping(FB4Transfer.makeWithSeparateHop())
    let cycles = scenarioCycles(from: [transfer])
    XCTAssertEqual(cycles.count, 1, "\(cycles)")
    let expected: [ScenarioStep] = [.edge("FB4Node.transfer"), .tupleElement("FB4Transfer.lastHop", index: 1, label: "to")]
    XCTAssertTrue(cycles.allSatisfy { scenarioCycle($0, matches: expected, closing: "FB4Node") }, "\(cycles)")
  }

  // MARK: - FB-5

  func testScenarioFB5_dictionaryKey_isACycleEdge() {
    let graph = escaping(FB5Graph.make())
    let node = FB5Node()
    node.graph = graph
    graph.index[node] = 1
    XCTAssertEqual(scenarioCycles(from: [graph]), ["FB5Graph.index[key] -> FB5Node.graph -> FB5Graph"])
  }

  func testScenarioFB5_weakBoxesInAnArray_findNoCycle() {
    var survivors: [ScenarioWeak] = []
    do {
      let registry = FB5Registry.make()
      let node = FB5Node()
      node.registry = registry
      registry.items = [FB5WeakBox(value: node), FB5WeakBox(value: nil)]
      XCTAssertEqual(scenarioCycles(from: [registry]), [])
      XCTAssertEqual(scenarioCycles(from: [node]), [])
      XCTAssertTrue(registry.items[0].value === node)
      survivors = [ScenarioWeak(registry), ScenarioWeak(node)]
    }
    XCTAssertFalse(survivors.contains { $0.isAlive })
  }

  func testScenarioFB5_setMember_isACycleEdge() {
    let bag = escaping(FB5Bag.make())
    let node = FB5Node()
    node.bag = bag
    bag.members = [node]
    XCTAssertEqual(scenarioCycles(from: [bag]), ["FB5Bag.members[element] -> FB5Node.bag -> FB5Bag"])
  }

  // MARK: - FB-6

  func testScenarioFB6_strongAssociationToItsOwner_isACycle() {
    let owner = escaping(FB6Owner.make())
    let value = FB6Value.make()
    value.owner = owner
    Associations.set(value, on: owner, key: "K", policy: .strong)
    XCTAssertEqual(scenarioCycles(from: [owner]), ["FB6Owner.associated[\"K\"] -> FB6Value.owner -> FB6Owner"])
  }

  func testScenarioFB6_weakAssociation_findsNoCycle() {
    var survivors: [ScenarioWeak] = []
    do {
      let owner = FB6Owner.make()
      let value = FB6Value.make()
      value.owner = owner
      Associations.set(value, on: owner, key: "K", policy: .weak)
      XCTAssertEqual(scenarioCycles(from: [owner]), [])
      XCTAssertTrue(Associations.value(on: owner, key: "K") === value)
      survivors = [ScenarioWeak(owner), ScenarioWeak(value)]
    }
    XCTAssertFalse(survivors.contains { $0.isAlive })
  }

  func testScenarioFB6_changingThePolicyToWeak_removesTheEdge() {
    let owner = escaping(FB6Owner.make())
    let value = escaping(FB6Value.make())
    value.owner = owner
    Associations.set(value, on: owner, key: "K", policy: .strong)
    XCTAssertEqual(scenarioCycles(from: [owner]).count, 1)
    Associations.set(value, on: owner, key: "K", policy: .weak)
    XCTAssertEqual(scenarioCycles(from: [owner]), [])
    XCTAssertTrue(Associations.value(on: owner, key: "K") === value)
  }

  func testScenarioFB6_freedOwner_releasesItsAssociations() {
    var survivors: [ScenarioWeak] = []
    do {
      let owner = FB6Owner.make()
      let value = FB6Value.make()
      Associations.set(value, on: owner, key: "K", policy: .strong)
      XCTAssertEqual(scenarioCycles(from: [owner]), [])
      XCTAssertTrue(scenarioReaches(owner, value))
      survivors = [ScenarioWeak(owner), ScenarioWeak(value)]
    }
    XCTAssertFalse(survivors.contains { $0.isAlive }, "no ROOTED residue in the side table")
  }

  // MARK: - TM-1

  static let tm1Cycle: [ScenarioStep] = [
    .edge("TM1FakeTimer.block"),
    .optionalClosure("closure #1 in TM1HUD.scheduleGraceTimer()", capturing: "TM1HUD"),
    .edge("TM1HUD.graceTimer"),
  ]

  func testScenarioTM1_storedTimerCapturingItsOwner_isACycleEvenAfterInvalidateAndFire() throws {
    let hud = escaping(TM1HUD.make())
    hud.scheduleGraceTimer()
    let timer = try XCTUnwrap(hud.graceTimer)
    for moment in ["scheduled", "fired", "invalidated"] {
      if moment == "fired" { timer.fire() }
      if moment == "invalidated" { timer.invalidate() }
      let cycles = scenarioCycles(from: [hud])
      XCTAssertEqual(cycles.count, 1, "\(moment): \(cycles)")
      XCTAssertTrue(cycles.allSatisfy { scenarioCycle($0, matches: Self.tm1Cycle, closing: "TM1FakeTimer") }, "\(moment): \(cycles)")
    }
    XCTAssertEqual(hud.shows, 1)
  }

  func testScenarioTM1_unstoredTimerCapturingItsOwner_isRootedWithoutACycle() throws {
    var owner = ScenarioWeak(nil)
    do {
      let hud = TM1HUD.make()
      hud.scheduleUnstoredGraceTimer()
      let timer = try XCTUnwrap(TM1FakeRunLoop.retainedTimers.last)
      XCTAssertEqual(scenarioCycles(from: [hud]), [])
      XCTAssertEqual(scenarioCycles(from: [timer]), [])
      XCTAssertTrue(scenarioReaches(timer, hud), "the immortal timer is the root")
      owner = ScenarioWeak(hud)
    }
    XCTAssertTrue(owner.isAlive, "ROOTED: the run loop's timer keeps the HUD")
  }

  func testScenarioTM1_weakCapture_freesTheOwner() throws {
    var owner = ScenarioWeak(nil)
    var residue = ScenarioWeak(nil)
    do {
      let hud = TM1HUD.make()
      hud.scheduleWeakGraceTimer()
      XCTAssertEqual(scenarioCycles(from: [hud]), [])
      owner = ScenarioWeak(hud)
      residue = ScenarioWeak(hud.graceTimer)
    }
    XCTAssertFalse(owner.isAlive)
    XCTAssertTrue(residue.isAlive, "the timer is library residue (P1)")
    XCTAssertEqual(scenarioCycles(from: [try XCTUnwrap(residue.object)]), [])
  }

  static let tm1FoundationCycle: [ScenarioStep] = [
    .pattern("Foundation\\.Timer\\.\\S+"),
    .optionalClosure("closure #1 in TM1FoundationHUD.scheduleGraceTimer()", capturing: "TM1FoundationHUD"),
    .edge("TM1FoundationHUD.graceTimer"),
  ]

  /// P1: corelibs never releases a Timer, and keeps its block after `invalidate()` or a fire.
  func testScenarioTM1_foundationTimer_storedWithStrongCapture_isACycleEvenAfterInvalidateAndFire() throws {
    let hud = escaping(TM1FoundationHUD.make())
    hud.scheduleGraceTimer()
    let timer = try XCTUnwrap(hud.graceTimer)
    for moment in ["scheduled", "fired", "invalidated"] {
      if moment == "fired" { timer.fire() }
      if moment == "invalidated" { timer.invalidate() }
      let cycles = scenarioCycles(from: [hud])
      XCTAssertEqual(cycles.count, 1, "\(moment): \(cycles)")
      XCTAssertTrue(
        cycles.allSatisfy { scenarioCycle($0, matches: Self.tm1FoundationCycle, closing: "Foundation.Timer") }, "\(moment): \(cycles)")
    }
  }

  func testScenarioTM1_foundationTimer_unstored_isRootedWithoutACycle() {
    var owner = ScenarioWeak(nil)
    var timer: Timer?
    do {
      let hud = TM1FoundationHUD.make()
      timer = hud.scheduleUnstoredGraceTimer()
      XCTAssertEqual(scenarioCycles(from: [hud]), [])
      XCTAssertEqual(scenarioCycles(from: [timer!]), [])
      XCTAssertTrue(scenarioReaches(timer!, hud))
      owner = ScenarioWeak(hud)
    }
    timer?.invalidate()
    timer = nil
    XCTAssertTrue(owner.isAlive, "P1: the timer is never deallocated, so neither is the HUD")
  }

  func testScenarioTM1_foundationTimer_weakCapture_freesTheOwner() {
    var owner = ScenarioWeak(nil)
    do {
      let hud = TM1FoundationHUD.make()
      hud.scheduleWeakGraceTimer()
      XCTAssertEqual(scenarioCycles(from: [hud]), [])
      hud.graceTimer?.invalidate()
      owner = ScenarioWeak(hud)
    }
    XCTAssertTrue(scenarioWait { !owner.isAlive })
  }

  // MARK: - YY-1

  func testScenarioYY1_weakProxyBetweenTimerAndTarget_findsNoCycle() throws {
    var ticker = ScenarioWeak(nil)
    var proxy = ScenarioWeak(nil)
    var timer = ScenarioWeak(nil)
    do {
      let owner = YY1Ticker.make()
      let weakProxy = owner.start()
      XCTAssertEqual(scenarioCycles(from: [owner]), [])
      owner.timer?.fire()
      XCTAssertEqual(owner.ticks, 1)
      ticker = ScenarioWeak(owner)
      proxy = ScenarioWeak(weakProxy)
      timer = ScenarioWeak(owner.timer)
    }
    XCTAssertFalse(ticker.isAlive, "the ticker is freed")
    XCTAssertTrue(proxy.isAlive && timer.isAlive, "the proxy and the timer are ROOTED residue (P1)")
    XCTAssertNil((proxy.object as? YY1WeakProxy<YY1Ticker>)?.target)
    XCTAssertEqual(scenarioCycles(from: [try XCTUnwrap(timer.object)]), [])
  }

  func testScenarioYY1_foundationTimer_weakProxy_findsNoCycle() throws {
    var ticker = ScenarioWeak(nil)
    var proxy = ScenarioWeak(nil)
    do {
      let owner = YY1FoundationTicker.make()
      let weakProxy = owner.start()
      XCTAssertEqual(scenarioCycles(from: [owner]), [])
      let timer = try XCTUnwrap(owner.timer)
      XCTAssertEqual(scenarioCycles(from: [timer]), [])
      XCTAssertTrue(scenarioReaches(timer, weakProxy))
      XCTAssertFalse(scenarioReaches(timer, owner))
      ticker = ScenarioWeak(owner)
      proxy = ScenarioWeak(weakProxy)
    }
    XCTAssertTrue(scenarioWait { !ticker.isAlive }, "the ticker is freed")
    XCTAssertTrue(proxy.isAlive, "P1: the timer and its proxy are library residue")
  }

  // MARK: - YYC-1

  func testScenarioYYC1_unownedLinks_findNoCycleAndRemoveAllFreesTheNodes() {
    var nodes: [ScenarioWeak] = []
    do {
      let map = YYC1LinkedMap<String, Int>.make()
      for index in 0..<10 { map.insertAtHead("k\(index)", index) }
      XCTAssertEqual(scenarioCycles(from: [map]), [])
      nodes = map.dic.values.map(ScenarioWeak.init)
      XCTAssertEqual(nodes.count, 10)
      map.removeAll()
      XCTAssertFalse(nodes.contains { $0.isAlive }, "removeAll frees every node")
      nodes.append(ScenarioWeak(map))
    }
    XCTAssertFalse(nodes.contains { $0.isAlive })
  }

  func testScenarioYYC1_strongLinks_areOverlappingTwoCyclesInOneComponent() throws {
    let map = escaping(YYC1StrongLinkedMap<String, Int>.make())
    for index in 0..<10 { map.insertAtHead("k\(index)", index) }
    let cycle =
      "YYC1StrongLinkedMapNode<Swift.String, Swift.Int>.next -> YYC1StrongLinkedMapNode<Swift.String, Swift.Int>.prev"
      + " -> YYC1StrongLinkedMapNode<Swift.String, Swift.Int>"
    XCTAssertEqual(scenarioCycles(from: [map]), Array(repeating: cycle, count: 9))
    let detector = RetainCycleDetector()
    detector.addCandidate(map)
    XCTAssertEqual(detector.findRetainCycleReport().components.map(\.objectCount), [10], "one SCC of all the nodes")

    let node = ScenarioWeak(map.dic["k0"])
    map.removeAll()
    XCTAssertTrue(node.isAlive, "the nodes leak after removeAll")
    XCTAssertEqual(scenarioCycles(from: [try XCTUnwrap(node.object)]).count, 9)
  }

  func testScenarioYYC1_strongLinks_tenThousandNodes_areSummarisedAsOneComponent() throws {
    let count = 10_000
    let map = escaping(YYC1StrongLinkedMap<Int, Int>.make())
    for index in 0..<count { map.insertAtHead(index, index) }
    let detector = RetainCycleDetector()
    detector.addCandidate(map)
    let start = Date()
    let report = detector.findRetainCycleReport()
    let elapsed = Date().timeIntervalSince(start)
    XCTAssertEqual(report.components.count, 1)
    let component = try XCTUnwrap(report.components.first)
    XCTAssertEqual(component.objectCount, count)
    XCTAssertLessThanOrEqual(component.cycles.count, RetainCycleDetector.Configuration().maxCyclesPerComponent)
    XCTAssertGreaterThan(component.cycles.count, 0)
    XCTAssertEqual(component.foundCycleCount, count - 1, "every adjacent pair, counted")
    XCTAssertLessThan(elapsed, 60, "the search stays fast")
    map.removeAll()
  }

  // MARK: - YYM-2

  static let yym2Cycles: [String] = (0..<3).map { "YYM2Comment.parent -> YYM2Comment.replies[\($0)] -> YYM2Comment" }

  func testScenarioYYM2_strongParentPointers_areThirtyNineCyclesInOneComponent() {
    let root = escaping(YYM2Comment.makeTree(depth: 3, fanOut: 3))
    root.linkParents()
    XCTAssertEqual(root.count, 40)
    assertYYM2Cycles(from: root)
  }

  func testScenarioYYM2_foundationDecodedTree_strongParentPointers_areThirtyNineCycles() throws {
    let data = Data(YYM2Comment.json(depth: 3, fanOut: 3).utf8)
    let root = escaping(try JSONDecoder().decode(YYM2Comment.self, from: data))
    XCTAssertEqual(root.count, 40)
    XCTAssertEqual(scenarioCycles(from: [root]), [], "no cycle before the loader links parents")
    root.linkParents()
    assertYYM2Cycles(from: root)
  }

  func assertYYM2Cycles(from root: YYM2Comment, file: StaticString = #filePath, line: UInt = #line) {
    let cycles = scenarioCycles(from: [root])
    XCTAssertEqual(cycles.count, 39, file: file, line: line)
    for cycle in Self.yym2Cycles {
      XCTAssertEqual(cycles.filter { $0 == cycle }.count, 13, cycle, file: file, line: line)
    }
    let detector = RetainCycleDetector()
    detector.addCandidate(root)
    let report = detector.findRetainCycleReport()
    XCTAssertEqual(report.components.map(\.objectCount), [40], "one SCC of 40 nodes", file: file, line: line)
    XCTAssertEqual(report.foundCycleCount, 39, file: file, line: line)
  }

  func testScenarioYYM2_weakParentPointers_findNoCycle() {
    var comments: [ScenarioWeak] = []
    do {
      let root = YYM2WeakComment.makeTree(depth: 3, fanOut: 3)
      XCTAssertEqual(scenarioCycles(from: [root]), [])
      comments = root.all.map(ScenarioWeak.init)
      XCTAssertEqual(comments.count, 40)
    }
    XCTAssertFalse(comments.contains { $0.isAlive })
  }

  func testScenarioYYM2_unownedUnsafeCaptureOfItsOwnDictionary_isNoEdge() {
    var survivors: [ScenarioWeak] = []
    do {
      let object = YYM2JSONObject.make()
      object.installUnsafeSetter()
      object.setter?("id", 7)
      XCTAssertEqual(object.storage["id"], 7)
      XCTAssertEqual(scenarioCycles(from: [object]), [])
      var suspicious = RetainCycleDetector.Configuration()
      suspicious.includesUnownedReferencesAsSuspicious = true
      XCTAssertEqual(scenarioCycles(from: [object], configuration: suspicious), [], "unowned(unsafe) is not even suspicious")
      survivors = [ScenarioWeak(object)]
    }
    XCTAssertFalse(survivors.contains { $0.isAlive })
  }

  // MARK: - BK-1

  static func bk1Cycle(closure: ScenarioStep) -> [ScenarioStep] {
    [
      .edge("BK1Control.associated[\"handlers\"]"),
      .edge("BK1HandlerTable.handlersByEvent[64][element]"),
      .edge("BK1HandlerWrapper.handler"),
      closure,
      .edge("BK1Screen.button"),
    ]
  }

  func testScenarioBK1_handlerCapturingTheScreen_isACycleThroughTheAssociatedDictionaryOfSets() {
    let screen = escaping(BK1Screen.make())
    screen.bindStrongly()
    screen.button.sendActions(for: .touchUpInside)
    XCTAssertEqual(screen.submissions, 1)
    let cycles = scenarioCycles(from: [screen])
    XCTAssertEqual(cycles.count, 1, "\(cycles)")
    let expected = Self.bk1Cycle(closure: .optionalClosure("closure #1 in BK1Screen.bindStrongly()", capturing: "BK1Screen"))
    XCTAssertTrue(cycles.allSatisfy { scenarioCycle($0, matches: expected, closing: "BK1Control") }, "\(cycles)")
    screen.button.removeEventHandlers(for: .touchUpInside)
    XCTAssertEqual(scenarioCycles(from: [screen]), [], "removing the handlers breaks it")
  }

  func testScenarioBK1_methodReference_isTheSameCycle() {
    let screen = escaping(BK1Screen.make())
    screen.bindMethodReference()
    screen.button.sendActions(for: .touchUpInside)
    XCTAssertEqual(screen.submissions, 1)
    let cycles = scenarioCycles(from: [screen])
    XCTAssertEqual(cycles.count, 1, "\(cycles)")
    // The partial application's context, if any, is named by the compiler.
    let expected = Self.bk1Cycle(closure: .optionalClosure("", capturing: "BK1Screen"))
    XCTAssertTrue(cycles.allSatisfy { scenarioCycle($0, matches: expected, closing: "BK1Control") }, "\(cycles)")
  }

  func testScenarioBK1_senderParameterWeakOrUnownedCapture_findNoCycle() {
    for (name, bind) in [
      ("sender", { (screen: BK1Screen) in screen.bindUsingSender() }),
      ("weak", { $0.bindWeakly() }),
      ("unowned", { $0.bindUnowned() }),
    ] as [(String, (BK1Screen) -> Void)] {
      var survivors: [ScenarioWeak] = []
      do {
        let screen = BK1Screen.make()
        bind(screen)
        screen.button.sendActions(for: .touchUpInside)
        XCTAssertEqual(scenarioCycles(from: [screen]), [], name)
        survivors = [ScenarioWeak(screen), ScenarioWeak(screen.button)]
      }
      XCTAssertFalse(survivors.contains { $0.isAlive }, name)
    }
  }

  // MARK: - BK-2

  static func bk2Cycle(userClosure: String) -> [ScenarioStep] {
    [
      .edge("BK2Screen.viewHolder"),
      .edge("BK2ViewHolder.presentButton"),
      .edge("BK2View.recognizers[0]"),
      .edge("BK2TapRecognizer.handler"),
      .closure("closure #1 in BK2View.whenTapped", capturing: "() -> ()"),
      .optionalClosure(userClosure, capturing: "BK2Screen"),
    ]
  }

  func testScenarioBK2_wrapperClosureCapturingTheUserBlock_isALongCycle() {
    let screen = escaping(BK2Screen.make())
    screen.bindPresentButton()
    screen.viewHolder.presentButton.recognizers[0].recognize()
    let cycles = scenarioCycles(from: [screen])
    XCTAssertEqual(cycles.count, 1, "\(cycles)")
    XCTAssertTrue(
      cycles.allSatisfy {
        scenarioCycle($0, matches: Self.bk2Cycle(userClosure: "closure #1 in BK2Screen.bindPresentButton()"), closing: "BK2Screen")
      },
      "\(cycles)")
  }

  func testScenarioBK2_weakSelfOnlyInTheInnerClosure_stillLeaks() {
    let screen = escaping(BK2Screen.make())
    screen.bindPresentButtonWeakInner()
    let cycles = scenarioCycles(from: [screen])
    XCTAssertEqual(cycles.count, 1, "\(cycles)")
    XCTAssertTrue(
      cycles.allSatisfy {
        scenarioCycle($0, matches: Self.bk2Cycle(userClosure: "closure #1 in BK2Screen.bindPresentButtonWeakInner()"), closing: "BK2Screen")
      }, "\(cycles)")
  }

  func testScenarioBK2_weakUserBlock_findsNoCycle() {
    var survivors: [ScenarioWeak] = []
    do {
      let screen = BK2Screen.make()
      screen.bindPresentButtonWeakly()
      XCTAssertEqual(scenarioCycles(from: [screen]), [])
      survivors = [ScenarioWeak(screen), ScenarioWeak(screen.viewHolder.presentButton.recognizers[0])]
    }
    XCTAssertFalse(survivors.contains { $0.isAlive })
  }

  // MARK: - MLF-1

  func testScenarioMLF1_probe_isNotTheRetainer() {
    let log = ScenarioEventLog()
    var controller = ScenarioWeak(nil)
    do {
      let object = MLF1ViewController.make()
      MLF1LeakProbe.expectDeallocation(of: object, within: 0.2, log: log)
      controller = ScenarioWeak(object)
    }
    XCTAssertFalse(controller.isAlive, "the pending check holds the object weakly")
    XCTAssertTrue(scenarioWait { log.events == ["deallocated"] }, "\(log.events)")
  }

  func testScenarioMLF1_freedBeforeTheDeadline_isNotReported() {
    let log = ScenarioEventLog()
    do {
      let object = MLF1ViewController.make()
      object.keepAlive(for: 0.05)
      MLF1LeakProbe.expectDeallocation(of: object, within: 0.5, log: log)
    }
    XCTAssertTrue(scenarioWait { !log.events.isEmpty })
    XCTAssertEqual(log.events, ["deallocated"])
  }

  func testScenarioMLF1_freedAfterTheDeadline_isReportedThenRetracted() {
    let log = ScenarioEventLog()
    var controller = ScenarioWeak(nil)
    do {
      let object = MLF1ViewController.make()
      object.keepAlive(for: 1.0)
      MLF1LeakProbe.expectDeallocation(of: object, within: 0.2, log: log)
      controller = ScenarioWeak(object)
    }
    XCTAssertTrue(scenarioWait { log.events.count == 2 }, "\(log.events)")
    XCTAssertEqual(log.events, ["leaked", "deallocated late"], "the proxy's deinit retracts the alert")
    XCTAssertFalse(controller.isAlive)
  }

  func testScenarioMLF1_neverFreed_isALeakWithATwentyObjectCycle() throws {
    let log = ScenarioEventLog()
    let controller: ScenarioWeak
    do {
      let object = MLF1ViewController.make()
      object.makeViewHierarchyCycle(length: 20)
      MLF1LeakProbe.expectDeallocation(of: object, within: 0.1, log: log)
      controller = ScenarioWeak(object)
    }
    XCTAssertTrue(scenarioWait { log.events == ["leaked"] }, "\(log.events)")
    let object = try XCTUnwrap(controller.object)
    XCTAssertNotNil(Associations.value(on: object, key: MLF1LeakProbe.proxyKey), "the proxy is attached")
    let cycles = scenarioCycles(from: [object], maxLength: 20)
    XCTAssertEqual(cycles.count, 1, "the weak proxy adds no cycle: \(cycles)")
    XCTAssertEqual(
      cycles.first,
      (["MLF1View.controller", "MLF1ViewController.view"] + Array(repeating: "MLF1View.subview", count: 18) + ["MLF1View"]).joined(
        separator: " -> "))
    XCTAssertEqual(scenarioCycles(from: [object], maxLength: 19), [], "20 objects long")
    XCTAssertTrue(scenarioReaches(object, try XCTUnwrap(Associations.value(on: object, key: MLF1LeakProbe.proxyKey))))
  }

  // MARK: - ALA-3

  // The spec's full `RequestState` (a `Result<_, any Error>` payload next to class payloads and
  // an `indirect` case): the SAFE states. Its CYCLE states are not asserted here: the detector
  // reads the wrong case of this enum (Documentation/LeakIdioms.md, ALA-3; for the enum-case
  // reading, Documentation/RuntimeNotes.md).

  func testScenarioALA3_idleAndSucceededStates_findNoCycle() {
    var survivors: [ScenarioWeak] = []
    do {
      let request = ALA3Request.make()
      XCTAssertEqual(scenarioCycles(from: [request]), [])
      request.succeed()
      XCTAssertEqual(scenarioCycles(from: [request]), [])
      survivors = [ScenarioWeak(request)]
    }
    XCTAssertFalse(survivors.contains { $0.isAlive })
  }

  /// P9: the work item keeps its block (and the request) after `perform()` and `cancel()`; the
  /// block, which libdispatch keeps, is read as the work item's edge.
  func testScenarioALA3_foundationRetryWorkItem_isACycleUntilTheStateChanges() {
    var survivors: [ScenarioWeak] = []
    do {
      let request = ALA3FoundationRequest.make()
      let work = request.scheduleRetry()
      let expected = [
        "ALA3FoundationRequest.state.retrying -> Dispatch.DispatchWorkItem.block"
          + " -> closure #1 in ALA3FoundationRequest.scheduleRetry().capture #0: ALA3FoundationRequest -> ALA3FoundationRequest"
      ]
      XCTAssertEqual(scenarioCycles(from: [request]), expected)
      work.perform()
      work.cancel()
      XCTAssertEqual(scenarioCycles(from: [request]), expected, "P9")
      request.state = .idle
      XCTAssertEqual(scenarioCycles(from: [request]), [])
      survivors = [ScenarioWeak(request), ScenarioWeak(work)]
    }
    XCTAssertTrue(scenarioWait { !survivors.contains { $0.isAlive } })
  }

  // MARK: - NC-1

  func testScenarioNC1_strongCaptureWithStoredToken_isACycleRootedByTheCenter() {
    let center = escaping(NC1NotificationCenter.make())
    let cache = escaping(NC1MemoryCache.make(center: center))
    cache.observeStrongly()
    center.post(name: "memoryWarning")
    XCTAssertEqual(cache.purges, 1)
    let expected: [ScenarioStep] = [
      .edge("NC1MemoryCache.token"), .edge("NC1Receiver.block"),
      .optionalClosure("closure #1 in NC1MemoryCache.observeStrongly()", capturing: "NC1MemoryCache"),
    ]
    let cycles = scenarioCycles(from: [cache])
    XCTAssertEqual(cycles.count, 1, "\(cycles)")
    XCTAssertTrue(cycles.allSatisfy { scenarioCycle($0, matches: expected, closing: "NC1MemoryCache") }, "\(cycles)")
    XCTAssertEqual(scenarioCycles(from: [center]), cycles, "the centre roots the same cycle")
  }

  func testScenarioNC1_strongCaptureWithoutToken_isRootedWithoutACycle() {
    let center = escaping(NC1NotificationCenter.make())
    var owner = ScenarioWeak(nil)
    do {
      let cache = NC1MemoryCache.make(center: center)
      cache.observeStronglyWithoutToken()
      XCTAssertEqual(scenarioCycles(from: [cache]), [])
      XCTAssertEqual(scenarioCycles(from: [center]), [])
      XCTAssertTrue(scenarioReaches(center, cache), "root path: center.observers → receiver → block → cache")
      owner = ScenarioWeak(cache)
    }
    XCTAssertTrue(owner.isAlive, "ROOTED by the centre")
    center.observers = [:]
    XCTAssertFalse(owner.isAlive, "and only by the centre")
  }

  func testScenarioNC1_weakCaptureOrRemovedObserver_findNoCycleAndFreeTheCache() {
    let center = escaping(NC1NotificationCenter.make())
    for name in ["weak", "removed"] {
      var owner = ScenarioWeak(nil)
      do {
        let cache = NC1MemoryCache.make(center: center)
        if name == "weak" {
          cache.observeWeakly()
        } else {
          cache.observeStrongly()
          cache.stopObserving()
        }
        XCTAssertEqual(scenarioCycles(from: [cache]), [], name)
        owner = ScenarioWeak(cache)
      }
      XCTAssertFalse(owner.isAlive, name)
    }
  }

  func testScenarioNC1_registeringInALoop_growsTheRootedReceiversWithoutACycle() {
    let center = escaping(NC1NotificationCenter.make())
    let cache = escaping(NC1MemoryCache.make(center: center))
    var counts: [Int] = []
    for _ in 0..<4 {
      cache.observeWeakly()
      counts.append(scenarioReachableTypes(from: center).filter { $0 == "NC1Receiver" }.count)
      XCTAssertEqual(scenarioCycles(from: [center]), [])
    }
    XCTAssertEqual(counts, [1, 2, 3, 4], "one more receiver per registration")
  }

  /// On Swift 6.3.1 the block observer lives in swift-foundation's NotificationCenter: the token
  /// (`_NSNotificationObserverToken`) holds only a value token, not the block, so a strong capture
  /// with the token stored is ROOTED by the centre, not a cycle; and the centre's storage cannot
  /// be read (the detector says so), so the root path is not visible.
  func testScenarioNC1_foundationObserver_strongCapture_isACycleThroughTheTokensRegistration() throws {
    let name = Notification.Name("NC1.memoryWarning.strong")
    var owner = ScenarioWeak(nil)
    var token: (any NSObjectProtocol)?
    do {
      let cache = NC1FoundationMemoryCache.make()
      cache.observeStrongly(name)
      NotificationCenter.default.post(name: name, object: nil)
      XCTAssertEqual(cache.purgeCount, 1)
      token = cache.token
      let tokenObject = try XCTUnwrap(token) as AnyObject
      XCTAssertTrue(scenarioReaches(cache, tokenObject))
      // The token's registration (the block the centre keeps until removeObserver) is its edge.
      XCTAssertTrue(references(of: tokenObject).contains { $0.label == "registration" && $0.ownership == .strong })
      XCTAssertTrue(scenarioReaches(tokenObject, cache))
      XCTAssertEqual(scenarioCycles(from: [cache]).count, 1, "\(scenarioCycles(from: [cache]))")
      owner = ScenarioWeak(cache)
    }
    XCTAssertTrue(owner.isAlive, "P4: the centre keeps the block, and the cache")
    XCTAssertTrue(
      references(of: NotificationCenter.default).contains { $0.label.hasPrefix("registrar[\"NC1.memoryWarning.strong\"][nil].storage[") },
      "\(summary(references(of: NotificationCenter.default)))")
    NotificationCenter.default.removeObserver(try XCTUnwrap(token))
    token = nil
    XCTAssertTrue(scenarioWait { !owner.isAlive }, "removing the observer frees the cache")
  }

  func testScenarioNC1_foundationObserver_weakCaptureOrRemovedObserver_freesTheCache() {
    for variant in ["weak", "removed"] {
      let name = Notification.Name("NC1.memoryWarning.\(variant)")
      var owner = ScenarioWeak(nil)
      do {
        let cache = NC1FoundationMemoryCache.make()
        if variant == "weak" {
          cache.observeWeakly(name)
        } else {
          cache.observeStrongly(name)
          cache.stopObserving()
        }
        XCTAssertEqual(scenarioCycles(from: [cache]), [], variant)
        owner = ScenarioWeak(cache)
      }
      XCTAssertTrue(scenarioWait { !owner.isAlive }, variant)
    }
  }

  // MARK: - LIB-1

  func testScenarioLIB1_nonEscapingClosures_findNoCycleAndNoClosureContext() {
    var survivors: [ScenarioWeak] = []
    do {
      let screen = LIB1Screen.make()
      screen.configure()
      XCTAssertEqual(screen.events, ["flush", "item 1", "item 2", "item 3", "Scenarios", "cleanup"])
      XCTAssertEqual(scenarioCycles(from: [screen]), [])
      let types = scenarioReachableTypes(from: screen)
      XCTAssertFalse(types.contains { $0.hasPrefix("closure") || $0.contains("thunk") }, "\(types)")
      survivors = [ScenarioWeak(screen)]
    }
    XCTAssertFalse(survivors.contains { $0.isAlive })
  }

  func testScenarioLIB1_storedConfiguredLabelWithStrongOwner_isACycle() {
    let screen = escaping(LIB1Screen.make())
    screen.configureStoredLabel()
    XCTAssertEqual(scenarioCycles(from: [screen]), ["LIB1Label.owner -> LIB1Screen.label -> LIB1Label"])
  }

  // MARK: - P12 (DD-3 variant)

  func testScenarioP12_lazyClosureProperty_isACycleOnlyOnceRead() {
    let formatter = escaping(P12Formatter.make())
    XCTAssertEqual(scenarioCycles(from: [formatter]), [])
    XCTAssertEqual(formatter.format("x"), "[DD] x")
    let cycles = scenarioCycles(from: [formatter])
    XCTAssertEqual(cycles.count, 1, "\(cycles)")
    let expected: [ScenarioStep] = [
      .pattern("P12Formatter\\.\\S*format"), .optionalClosure("closure #1 in P12Formatter.format", capturing: "P12Formatter"),
    ]
    XCTAssertTrue(cycles.allSatisfy { scenarioCycle($0, matches: expected, closing: "P12Formatter") }, "\(cycles)")
  }
}
