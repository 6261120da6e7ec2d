import Dispatch
import Foundation
import LeakDetector
import XCTest

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

// Fixtures for the leak idioms of Documentation/LeakIdioms.md (SD-1 … LIB-1; the P-ids cited
// below are that page's library retention patterns): for each, a pure-Swift mirror with classes
// the project controls and, where the idiom goes through Foundation or Dispatch, a
// Foundation-backed variant. Every type is prefixed with its scenario id. Methods that create
// closures are `@inline(never)` so that their closure contexts keep their names, and every
// capture is used in the closure body (unused captures are dropped by the compiler). Objects
// whose deallocation a test checks are made by `@inline(never)` factories, so the optimizer
// cannot stack-promote them (Documentation/RuntimeNotes.md, "What the tracker cannot see").

// MARK: - Support

/// A weak reference to a fixture object, to check what survives a teardown.
struct ScenarioWeak {
  weak var object: AnyObject?
  init(_ object: AnyObject?) { self.object = object }
  var isAlive: Bool { object != nil }
}

/// A weak reference that can be captured by `@Sendable` closures.
struct ScenarioSendableWeak: @unchecked Sendable {
  weak var object: AnyObject?
  init(_ object: AnyObject?) { self.object = object }
}

/// A thread-safe list of events, for callbacks that run on Dispatch queues.
final class ScenarioEventLog: @unchecked Sendable {
  private let lock = NSLock()
  private var storage: [String] = []
  func append(_ event: String) { lock.withLock { storage.append(event) } }
  var events: [String] { lock.withLock { storage } }
}

/// Polls `condition` (spinning the current run loop) until it holds or `timeout` passes.
func scenarioWait(timeout: TimeInterval = 5, until condition: () -> Bool) -> Bool {
  let deadline = Date().addingTimeInterval(timeout)
  while !condition() {
    if Date() > deadline { return false }
    _ = RunLoop.current.run(mode: .default, before: Date().addingTimeInterval(0.01))
  }
  return true
}

/// Normalized descriptions (see `normalized(_:)`) of the cycles reachable from `candidates`.
func scenarioCycles(
  from candidates: [AnyObject], configuration: RetainCycleDetector.Configuration = .init(), maxLength: Int = 20
) -> [String] {
  let detector = RetainCycleDetector(configuration: configuration)
  for candidate in candidates { detector.addCandidate(candidate) }
  return detector.findRetainCycles(maxLength: maxLength).map(normalized)
}

/// The types of the objects the detector read from `candidate` (the objects strongly reachable
/// from it), unqualified.
func scenarioReachableTypes(from candidate: AnyObject, configuration: RetainCycleDetector.Configuration = .init()) -> [String] {
  let detector = RetainCycleDetector(configuration: configuration)
  detector.addCandidate(candidate)
  _ = detector.findRetainCycles()
  return (detector.lastSnapshot?.objects ?? []).map { unqualified($0.type) }
}

/// Whether the object at `address(of: target)` is strongly reachable from `candidate`.
func scenarioReaches(_ candidate: AnyObject, _ target: AnyObject, configuration: RetainCycleDetector.Configuration = .init()) -> Bool {
  let detector = RetainCycleDetector(configuration: configuration)
  detector.addCandidate(candidate)
  _ = detector.findRetainCycles()
  return (detector.lastSnapshot?.objects ?? []).contains { $0.address == UInt64(address(of: target)) }
}

/// One step of an expected cycle, for `scenarioCycle(_:matches:closing:)`.
enum ScenarioStep {
  /// `Type.label`, exactly.
  case edge(String)
  /// A regular expression for one `Type.label` step.
  case pattern(String)
  /// A closure context named `closure…` starting with `function` whose capture of `captured`
  /// leads on; it may be missing, because a closure that captures a single object uses that
  /// object itself as its context.
  case optionalClosure(_ function: String, capturing: String)
  /// A closure context that must be there (it has several captures).
  case closure(_ function: String, capturing: String)
  /// A reabstraction thunk's context, which Swift may put around a closure stored in a generic
  /// container (an array of tuples, an enum payload).
  case optionalThunk

  /// `Type.label` of a labelled tuple element, accepting its index or its label.
  static func tupleElement(_ path: String, index: Int, label: String) -> ScenarioStep {
    .pattern(NSRegularExpression.escapedPattern(for: path) + "\\.(?:\(index)|\(label))")
  }
}

/// Whether the normalized cycle `description` is `steps`, closing back at type `closing`.
func scenarioCycle(_ description: String, matches steps: [ScenarioStep], closing: String) -> Bool {
  var pattern = "^"
  for step in steps {
    switch step {
    case .edge(let text):
      pattern += NSRegularExpression.escapedPattern(for: text) + " -> "
    case .pattern(let regex):
      pattern += regex + " -> "
    case .optionalClosure(let function, let captured):
      pattern +=
        "(?:" + NSRegularExpression.escapedPattern(for: function) + ".*?\\.capture #\\d+: "
        + NSRegularExpression.escapedPattern(for: captured) + " -> )?"
    case .closure(let function, let captured):
      pattern +=
        NSRegularExpression.escapedPattern(for: function) + ".*?\\.capture #\\d+: "
        + NSRegularExpression.escapedPattern(for: captured) + " -> "
    case .optionalThunk:
      pattern += "(?:reabstraction thunk(?: of .*?)?\\.capture #\\d+: .*? -> )?"
    }
  }
  pattern += NSRegularExpression.escapedPattern(for: closing) + "$"
  guard let regex = try? NSRegularExpression(pattern: pattern) else { return false }
  return regex.firstMatch(in: description, range: NSRange(description.startIndex..., in: description)) != nil
}

/// Converts a data-task completion handler to a `@Sendable` one without a check: the fixture
/// deliberately captures a `var` (Swift 6 forbids it in a `@Sendable` closure). The closure's
/// context is unchanged.
typealias ScenarioDataTaskCompletion = (Data?, URLResponse?, (any Error)?) -> Void
func scenarioAssumeSendable(_ body: @escaping ScenarioDataTaskCompletion) -> @Sendable (Data?, URLResponse?, (any Error)?) -> Void {
  unsafeBitCast(body, to: (@Sendable (Data?, URLResponse?, (any Error)?) -> Void).self)
}

// MARK: - SD-1 · weak-strong dance; the load operation lives in a side table on the view

final class SD1Image {
  let url: String
  init(url: String) { self.url = url }
}

/// `SDWebImageCombinedOperation` with its `SDCallbacksDictionary`-like tuple list.
final class SD1LoadOperation {
  typealias Progress = (Int, Int) -> Void
  typealias Completed = (SD1Image?) -> Void

  let url: String
  var callbacks: [(progress: Progress?, completed: Completed)] = []
  private(set) var isCancelled = false

  init(url: String) { self.url = url }

  func cancel() { isCancelled = true }

  /// The download finished: every completion block gets the image.
  func finish() {
    let image = SD1Image(url: url)
    for callback in callbacks { callback.completed(image) }
  }
}

/// The associated `[String: operation]` dictionary (`sd_operationDictionary`).
final class SD1OperationTable {
  var operations: [String: SD1LoadOperation] = [:]
}

final class SD1ImageManager {
  @inline(never)
  func load(_ url: String, progress: SD1LoadOperation.Progress?, completed: @escaping SD1LoadOperation.Completed) -> SD1LoadOperation {
    let operation = SD1LoadOperation(url: url)
    operation.callbacks.append((progress: progress, completed: completed))
    return operation
  }
}

/// `UIImageView (WebCache)` without UIKit.
final class SD1ImageView {
  static let operationKey = "SD1ImageView"
  var image: SD1Image?
  let manager = SD1ImageManager()
  /// `false` models a side table that keeps finished operations (the never-breaks variant).
  var removesFinishedOperations = true
  private(set) var loads = 0

  @inline(never) static func make() -> SD1ImageView { SD1ImageView() }

  var operationTable: SD1OperationTable {
    if let table = Associations.value(on: self, key: "operations") as? SD1OperationTable { return table }
    let table = SD1OperationTable()
    Associations.set(table, on: self, key: "operations")
    return table
  }

  func cancelCurrentImageLoad() {
    operationTable.operations.removeValue(forKey: Self.operationKey)?.cancel()
  }

  /// The SDWebImage 5 form: `@weakify(self)` … `@strongify(self); if (!self) return;`.
  @inline(never)
  func setImageWithWeakSelf(_ url: String) {
    cancelCurrentImageLoad()
    let operation = manager.load(url, progress: nil) { [weak self] image in
      guard let self else { return }
      self.image = image
      self.didFinishLoad()
    }
    operationTable.operations[Self.operationKey] = operation
  }

  /// The variant that captures the view strongly.
  @inline(never)
  func setImageWithStrongSelf(_ url: String) {
    cancelCurrentImageLoad()
    let operation = manager.load(url, progress: nil) { image in
      self.image = image
      self.didFinishLoad()
    }
    operationTable.operations[Self.operationKey] = operation
  }

  func didFinishLoad() {
    loads += 1
    if removesFinishedOperations { operationTable.operations[Self.operationKey] = nil }
  }

  var currentOperation: SD1LoadOperation? { operationTable.operations[Self.operationKey] }
}

// MARK: - SD-3 · URL → operation registry; completion blocks

/// A pure mirror of corelibs' `Operation`: its completion block is stored and, as on Linux (P6),
/// not cleared after it runs.
final class SD3DownloadOperation {
  let url: String
  var completionBlock: (() -> Void)?
  private(set) var isFinished = false
  private(set) var checks = 0

  init(url: String) { self.url = url }

  func finish() {
    isFinished = true
    completionBlock?()
  }

  func check() { checks += 1 }
}

final class SD3ImageDownloader {
  var urlOperations: [String: SD3DownloadOperation] = [:]

  @inline(never) static func make() -> SD3ImageDownloader { SD3ImageDownloader() }

  /// SDWebImage 5: `@weakify(self)`, and the block finds the operation weakly.
  @inline(never)
  func downloadWithWeakCaptures(_ url: String) -> SD3DownloadOperation {
    let operation = SD3DownloadOperation(url: url)
    operation.completionBlock = { [weak self, weak operation] in
      guard let self, let operation else { return }
      if self.urlOperations[url] === operation { self.urlOperations[url] = nil }
    }
    urlOperations[url] = operation
    return operation
  }

  /// SDWebImage 4 (variant A): the downloader is captured strongly, the operation weakly.
  @inline(never)
  func downloadCapturingDownloader(_ url: String) -> SD3DownloadOperation {
    let operation = SD3DownloadOperation(url: url)
    operation.completionBlock = { [weak operation] in
      guard let operation else { return }
      if self.urlOperations[url] === operation { self.urlOperations[url] = nil }
    }
    urlOperations[url] = operation
    return operation
  }

  /// Variant B: the completion block captures its own operation strongly.
  @inline(never)
  func downloadCapturingOperation(_ url: String) -> SD3DownloadOperation {
    let operation = SD3DownloadOperation(url: url)
    operation.completionBlock = { [weak self] in
      self?.urlOperations[url] = nil
      operation.check()
    }
    urlOperations[url] = operation
    return operation
  }
}

/// `SDWebImageDownloaderOperation: NSOperation`, a Foundation subclass.
final class SD3FoundationDownloadOperation: Operation, @unchecked Sendable {
  let url: String
  init(url: String) { self.url = url }
  override func main() {}
  func check() { _ = isCancelled }
}

final class SD3FoundationDownloader: @unchecked Sendable {
  private let lock = NSLock()
  private var _urlOperations: [String: SD3FoundationDownloadOperation] = [:]
  let downloadQueue: OperationQueue = {
    let queue = OperationQueue()
    queue.isSuspended = true  // nothing runs: the operations stay queued
    return queue
  }()
  private var _completions = 0
  /// How many completion blocks have run; they run on the operation's thread, so it is read
  /// under the lock too.
  var completions: Int { lock.withLock { _completions } }

  @inline(never) static func make() -> SD3FoundationDownloader { SD3FoundationDownloader() }

  var urlOperations: [String: SD3FoundationDownloadOperation] {
    get { lock.withLock { _urlOperations } }
    set { lock.withLock { _urlOperations = newValue } }
  }

  func removeOperation(_ operation: SD3FoundationDownloadOperation, for url: String) {
    lock.withLock {
      _completions += 1
      if _urlOperations[url] === operation { _urlOperations[url] = nil }
    }
  }

  /// SDWebImage 5: `[weak self, weak op]`.
  @inline(never)
  func downloadWithWeakCaptures(_ url: String) -> SD3FoundationDownloadOperation {
    let operation = SD3FoundationDownloadOperation(url: url)
    operation.completionBlock = { [weak self, weak operation] in
      guard let self, let operation else { return }
      self.removeOperation(operation, for: url)
    }
    urlOperations[url] = operation
    return operation
  }

  /// Variant A: the downloader strongly, the operation weakly.
  @inline(never)
  func downloadCapturingDownloader(_ url: String) -> SD3FoundationDownloadOperation {
    let operation = SD3FoundationDownloadOperation(url: url)
    operation.completionBlock = { [weak operation] in
      guard let operation else { return }
      self.removeOperation(operation, for: url)
    }
    urlOperations[url] = operation
    return operation
  }

  /// Variant B: the completion block captures its own operation strongly.
  @inline(never)
  func downloadCapturingOperation(_ url: String) -> SD3FoundationDownloadOperation {
    let operation = SD3FoundationDownloadOperation(url: url)
    operation.completionBlock = { [weak self] in
      self?.removeOperation(operation, for: url)
      operation.check()
    }
    urlOperations[url] = operation
    return operation
  }

  /// The operation only sits in the (suspended) download queue, whose completion block captures
  /// the downloader: `downloadQueue ={rt: Unmanaged op list}=> operation.__completion → self`.
  @inline(never)
  func enqueueCapturingDownloader(_ url: String) -> SD3FoundationDownloadOperation {
    let operation = SD3FoundationDownloadOperation(url: url)
    operation.completionBlock = { [weak operation] in
      guard let operation else { return }
      self.removeOperation(operation, for: url)
    }
    downloadQueue.addOperation(operation)
    return operation
  }
}

/// The `{rt:}` edge of P8: an `OperationQueue` keeps its pending operations through `Unmanaged`
/// pointers, which are not strong references. This provider declares them from the public
/// `operations` list.
enum ScenarioOperationQueues {
  static func references(of object: AnyObject) -> [DeclaredReference] {
    guard let queue = object as? OperationQueue else { return [] }
    return queue.operations.enumerated().map { DeclaredReference("operations[\($0.offset)]", $0.element) }
  }

  static var configuration: RetainCycleDetector.Configuration {
    var configuration = RetainCycleDetector.Configuration()
    configuration.referenceProviders = [references(of:)]
    return configuration
  }
}

// MARK: - SD-4 · the downloader is its session's delegate

protocol SD4SessionDelegate: AnyObject {
  func session(_ session: SD4FakeSession, didComplete task: SD4FakeTask)
}

/// A pure mirror of corelibs' `URLSession`: a strong `delegate` cleared by invalidation (P2) and
/// a task registry; a registered task points back at its session until it completes (P3).
final class SD4FakeSession {
  private(set) var delegate: (any SD4SessionDelegate)?
  var tasks: [Int: SD4FakeTask] = [:]
  private var nextIdentifier = 1

  init(delegate: (any SD4SessionDelegate)?) { self.delegate = delegate }

  func dataTask() -> SD4FakeTask {
    let task = SD4FakeTask(identifier: nextIdentifier, session: self)
    tasks[nextIdentifier] = task
    nextIdentifier += 1
    return task
  }

  func complete(_ task: SD4FakeTask) {
    tasks[task.identifier] = nil
    task.session = nil  // "change to nil when task completes"
    delegate?.session(self, didComplete: task)
  }

  func invalidateAndCancel() {
    for task in tasks.values { task.session = nil }
    tasks = [:]
    delegate = nil
  }
}

final class SD4FakeTask {
  let identifier: Int
  var session: SD4FakeSession?
  init(identifier: Int, session: SD4FakeSession) {
    self.identifier = identifier
    self.session = session
  }
}

/// `SDWebImageDownloader`: stores the session it is the delegate of.
final class SD4ImageDownloader: SD4SessionDelegate {
  var session: SD4FakeSession!
  private(set) var completed = 0

  @inline(never) static func make() -> SD4ImageDownloader { SD4ImageDownloader() }

  init() {
    session = SD4FakeSession(delegate: self)
  }

  func session(_ session: SD4FakeSession, didComplete task: SD4FakeTask) { completed += 1 }
}

/// OHHTTPStubs-style: a new, unstored session per request, with `delegate: self`.
final class SD4URLProtocol: SD4SessionDelegate {
  private(set) var completed = 0

  @inline(never) static func make() -> SD4URLProtocol { SD4URLProtocol() }

  @inline(never)
  func startLoading() -> SD4FakeTask {
    let session = SD4FakeSession(delegate: self)
    return session.dataTask()
  }

  func session(_ session: SD4FakeSession, didComplete task: SD4FakeTask) { completed += 1 }
}

final class SD4FoundationDownloader: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  var session: URLSession!

  @inline(never) static func make() -> SD4FoundationDownloader { SD4FoundationDownloader() }

  override init() {
    super.init()
    session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: nil)
  }
}

final class SD4FoundationURLProtocol: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  @inline(never) static func make() -> SD4FoundationURLProtocol { SD4FoundationURLProtocol() }

  /// A new session per request, not stored; the task is not resumed.
  @inline(never)
  func startLoading(_ url: URL) -> URLSessionDataTask {
    let session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: nil)
    return session.dataTask(with: url)
  }
}

// MARK: - YTK-1 · a `var` task captured by its own completion handler

/// The task holds its completion handler until it finishes (AFNetworking's task delegate).
final class YTK1FakeTask {
  var completion: (() -> Void)?
  func finish() {
    completion?()
    completion = nil
  }
}

final class YTK1NetworkAgent: @unchecked Sendable {
  private let lock = NSLock()
  private var _handled = 0
  /// How many completions saw their task; a session calls them on its own queue, so the count
  /// is kept under a lock.
  var handled: Int { lock.withLock { _handled } }

  @inline(never) static func make() -> YTK1NetworkAgent { YTK1NetworkAgent() }

  func handle(_ task: AnyObject?) { if task != nil { lock.withLock { _handled += 1 } } }

  @inline(never)
  func dataTask(completion: @escaping () -> Void) -> YTK1FakeTask {
    let task = YTK1FakeTask()
    task.completion = completion
    return task
  }

  /// `__block NSURLSessionDataTask *dataTask = nil; dataTask = [… completionHandler:^{ … dataTask … }]`.
  @inline(never)
  func startRequest() -> YTK1FakeTask {
    var task: YTK1FakeTask? = nil
    task = dataTask { self.handle(task) }
    return task!
  }

  /// The same on a real `URLSession` (the task is not resumed unless the test does it).
  @inline(never)
  func startRequest(on session: URLSession, url: URL) -> URLSessionDataTask {
    var task: URLSessionDataTask? = nil
    let completion: ScenarioDataTaskCompletion = { _, _, _ in self.handle(task) }
    task = session.dataTask(with: url, completionHandler: scenarioAssumeSendable(completion))
    return task!
  }
}

// MARK: - YTK-3 · chain requests with weak delegates

protocol YTK3RequestDelegate: AnyObject {
  func requestFinished(_ request: any YTK3Request)
}

protocol YTK3Request: AnyObject {
  var delegate: (any YTK3RequestDelegate)? { get set }
  var path: String { get }
}

/// `YTKBaseRequest`: `@property (weak) id<YTKRequestDelegate> delegate`.
final class YTK3BaseRequest: YTK3Request {
  weak var delegate: (any YTK3RequestDelegate)?
  let path: String
  init(path: String) { self.path = path }
}

/// Variant A: the delegate is strong.
final class YTK3StrongDelegateRequest: YTK3Request {
  var delegate: (any YTK3RequestDelegate)?
  let path: String
  init(path: String) { self.path = path }
}

/// `YTKChainRequest`: the parallel request/callback arrays become an array of tuples.
final class YTK3ChainRequest: YTK3RequestDelegate {
  typealias Callback = (YTK3ChainRequest, any YTK3Request) -> Void

  var steps: [(request: any YTK3Request, callback: Callback)] = []
  private(set) var finishedSteps = 0

  @inline(never) static func make() -> YTK3ChainRequest { YTK3ChainRequest() }

  func add(_ request: any YTK3Request, callback: @escaping Callback = { _, _ in }) {
    request.delegate = self
    steps.append((request: request, callback: callback))
  }

  func start() { YTK3ChainRequestAgent.shared.add(self) }

  func requestFinished(_ request: any YTK3Request) {
    let step = steps[finishedSteps]
    finishedSteps += 1
    step.callback(self, request)
    if finishedSteps == steps.count { YTK3ChainRequestAgent.shared.remove(self) }
  }

  private(set) var nextCalls = 0
  func next(after request: any YTK3Request) { nextCalls += 1 }

  /// Variant B: the step callback captures the chain instead of using its parameter.
  @inline(never)
  static func makeSelfCapturingChain() -> YTK3ChainRequest {
    let chain = YTK3ChainRequest()
    chain.add(YTK3BaseRequest(path: "/a")) { _, request in chain.next(after: request) }
    return chain
  }
}

/// `YTKChainRequestAgent.sharedAgent`: keeps chains alive while they run (a ROOTED holder).
final class YTK3ChainRequestAgent {
  nonisolated(unsafe) static let shared = YTK3ChainRequestAgent()
  var chains: [YTK3ChainRequest] = []
  func add(_ chain: YTK3ChainRequest) { chains.append(chain) }
  func remove(_ chain: YTK3ChainRequest) { chains.removeAll { $0 === chain } }
}

// MARK: - DD-2 · dispatch source handlers capturing self

/// A pure mirror of a `DispatchSourceTimer`: it keeps its event handler until it is cancelled.
final class DD2FakeTimerSource {
  private(set) var eventHandler: (() -> Void)?
  private(set) var isCancelled = false
  func setEventHandler(_ handler: @escaping () -> Void) { eventHandler = handler }
  func fire() { eventHandler?() }
  func cancel() {
    isCancelled = true
    eventHandler = nil
  }
}

/// `DDFileLogger`'s rolling timer.
final class DD2FileLogger {
  var rollingTimer: DD2FakeTimerSource?
  private(set) var rollChecks = 0

  @inline(never) static func make() -> DD2FileLogger { DD2FileLogger() }

  func maybeRollLogFileDueToAge() { rollChecks += 1 }

  @inline(never)
  func scheduleTimerToRollLogFileDueToAge() {
    rollingTimer?.cancel()
    let timer = DD2FakeTimerSource()
    timer.setEventHandler { self.maybeRollLogFileDueToAge() }
    rollingTimer = timer
  }

  /// YYTimer: `^{ [_self fire]; }` with a weak `_self`.
  @inline(never)
  func scheduleWeakTimer() {
    rollingTimer?.cancel()
    let timer = DD2FakeTimerSource()
    timer.setEventHandler { [weak self] in self?.maybeRollLogFileDueToAge() }
    rollingTimer = timer
  }

  func stopRolling() {
    rollingTimer?.cancel()
    rollingTimer = nil
  }
}

/// A hook that records, per dispatch source or work item, the objects its handler block
/// captures strongly: the edge provider the detector needs for libdispatch-held blocks ({rt:}
/// edges). It holds nothing strongly itself.
enum ScenarioDispatchHandlers {
  private nonisolated(unsafe) static var captures: [ObjectIdentifier: (owner: ScenarioWeak, captured: [ScenarioWeak])] = [:]
  private static let lock = NSLock()

  static func record(_ captured: [AnyObject], heldBy owner: AnyObject) {
    lock.withLock { captures[ObjectIdentifier(owner)] = (ScenarioWeak(owner), captured.map(ScenarioWeak.init)) }
  }

  static func forget(_ owner: AnyObject) {
    _ = lock.withLock { captures.removeValue(forKey: ObjectIdentifier(owner)) }
  }

  /// The reference provider: `handler` edges from a source or work item to what its block captures.
  static func references(of object: AnyObject) -> [DeclaredReference] {
    lock.withLock {
      guard let entry = captures[ObjectIdentifier(object)], entry.owner.object === object else { return [] }
      return entry.captured.compactMap(\.object).map { DeclaredReference("handler", $0) }
    }
  }

  static var configuration: RetainCycleDetector.Configuration {
    var configuration = RetainCycleDetector.Configuration()
    configuration.referenceProviders = [references(of:)]
    return configuration
  }
}

final class DD2FoundationFileLogger: @unchecked Sendable {
  var rollingTimer: DispatchSourceTimer?
  let loggerQueue = DispatchQueue(label: "DD2FoundationFileLogger")
  private let lock = NSLock()
  private var rollChecks = 0

  @inline(never) static func make() -> DD2FoundationFileLogger { DD2FoundationFileLogger() }

  func maybeRollLogFileDueToAge() { lock.withLock { rollChecks += 1 } }

  @inline(never)
  func scheduleTimerToRollLogFileDueToAge() {
    let timer = DispatchSource.makeTimerSource(queue: loggerQueue)
    timer.setEventHandler { self.maybeRollLogFileDueToAge() }
    ScenarioDispatchHandlers.record([self], heldBy: timer as AnyObject)
    timer.schedule(deadline: .now() + 3600)
    timer.resume()
    rollingTimer = timer
  }

  @inline(never)
  func scheduleWeakTimer() {
    let timer = DispatchSource.makeTimerSource(queue: loggerQueue)
    timer.setEventHandler { [weak self] in self?.maybeRollLogFileDueToAge() }
    ScenarioDispatchHandlers.record([], heldBy: timer as AnyObject)
    timer.schedule(deadline: .now() + 3600)
    timer.resume()
    rollingTimer = timer
  }

  func stopRolling() {
    if let timer = rollingTimer {
      timer.cancel()
      ScenarioDispatchHandlers.forget(timer as AnyObject)
    }
    rollingTimer = nil
  }

  deinit { rollingTimer?.cancel() }
}

// MARK: - FB-1 · self-loop

final class FB1RCDTestClass {
  var object: AnyObject?
  @inline(never) static func make() -> FB1RCDTestClass { FB1RCDTestClass() }
}

final class FB1TypedTestClass {
  var object: FB1TypedTestClass?
  @inline(never) static func make() -> FB1TypedTestClass { FB1TypedTestClass() }
}

// MARK: - FB-2 · seven objects, three overlapping cycles

final class FB2TestObject {
  var object: FB2TestObject?
  var secondObject: FB2TestObject?

  /// FBRetainCycleDetector's example graph; index i is `testObject{i+1}`.
  @inline(never)
  static func makeGraph() -> [FB2TestObject] {
    let objects = (0..<7).map { _ in FB2TestObject() }
    objects[0].object = objects[1]
    objects[0].secondObject = objects[2]
    objects[1].object = objects[3]
    objects[1].secondObject = objects[4]
    objects[2].object = objects[0]
    objects[3].object = objects[0]
    objects[4].object = objects[5]
    objects[4].secondObject = objects[6]
    objects[6].object = objects[1]
    return objects
  }
}

// MARK: - FB-3 · mixed strong and weak captures in one closure

final class FB3Holder {
  var action: (() -> Void)?
  private(set) var touches = 0
  func touch() { touches += 1 }
  @inline(never) static func make() -> FB3Holder { FB3Holder() }
}

final class FB3Other {
  private(set) var touches = 0
  func touch() { touches += 1 }
}

enum FB3Binder {
  /// `first` strong, `second` weak, `third` strong.
  @inline(never)
  static func bindMixed(_ holder: FB3Holder, second: FB3Holder, third: FB3Other) {
    let first = holder
    holder.action = { [weak second] in
      first.touch()
      second?.touch()
      third.touch()
    }
  }

  /// The control: `first` weak too.
  @inline(never)
  static func bindAllWeakHolders(_ holder: FB3Holder, second: FB3Holder, third: FB3Other) {
    let first = holder
    holder.action = { [weak first, weak second] in
      first?.touch()
      second?.touch()
      third.touch()
    }
  }
}

// MARK: - FB-4 · references inside structs and tuples

final class FB4Node {
  var transfer: FB4Transfer?
}

final class FB4Transfer {
  struct Endpoints {
    var source: FB4Node
    var sink: FB4Node
    var retries: Int
  }

  var endpoints: Endpoints
  var lastHop: (from: FB4Node, to: FB4Node)?

  init(endpoints: Endpoints) { self.endpoints = endpoints }

  @inline(never)
  static func make() -> FB4Transfer {
    let transfer = FB4Transfer(endpoints: Endpoints(source: FB4Node(), sink: FB4Node(), retries: 3))
    transfer.endpoints.source.transfer = transfer
    transfer.endpoints.sink.transfer = transfer
    transfer.lastHop = (from: FB4Node(), to: transfer.endpoints.sink)  // `from` does not point back
    return transfer
  }

  /// The same, but the last hop ends at a third node (not an endpoint) that points back.
  @inline(never)
  static func makeWithSeparateHop() -> FB4Transfer {
    let transfer = FB4Transfer(endpoints: Endpoints(source: FB4Node(), sink: FB4Node(), retries: 3))
    let hop = FB4Node()
    hop.transfer = transfer
    transfer.lastHop = (from: FB4Node(), to: hop)
    return transfer
  }
}

// MARK: - FB-5 · collections that do and do not retain; dictionary keys

final class FB5Node: Hashable {
  var graph: FB5Graph?
  var registry: FB5Registry?
  var bag: FB5Bag?
  static func == (lhs: FB5Node, rhs: FB5Node) -> Bool { lhs === rhs }
  func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

final class FB5Graph {
  var index: [FB5Node: Int] = [:]
  @inline(never) static func make() -> FB5Graph { FB5Graph() }
}

/// A hand-written weak collection (there is no `NSHashTable` in corelibs, P15).
struct FB5WeakBox<T: AnyObject> {
  weak var value: T?
}

final class FB5Registry {
  var items: [FB5WeakBox<FB5Node>] = []
  @inline(never) static func make() -> FB5Registry { FB5Registry() }
}

final class FB5Bag {
  var members: Set<FB5Node> = []
  @inline(never) static func make() -> FB5Bag { FB5Bag() }
}

// MARK: - FB-6 · associated objects

final class FB6Owner {
  @inline(never) static func make() -> FB6Owner { FB6Owner() }
}

final class FB6Value {
  var owner: FB6Owner?
  @inline(never) static func make() -> FB6Value { FB6Value() }
}

// MARK: - TM-1 · timer blocks capturing their owner

/// corelibs' `CFRunLoopTimer` context: `Unmanaged.passRetained(timer)` never released (P1).
enum TM1FakeRunLoop {
  nonisolated(unsafe) static var retainedTimers: [TM1FakeTimer] = []
}

/// A pure mirror of corelibs' `Timer`: the block (`_fire`) is kept after `invalidate()` and after
/// a one-shot fire, and the run loop never lets the timer go (P1).
final class TM1FakeTimer {
  private(set) var block: (TM1FakeTimer) -> Void
  let repeats: Bool
  private(set) var isValid = true

  private init(repeats: Bool, block: @escaping (TM1FakeTimer) -> Void) {
    self.repeats = repeats
    self.block = block
  }

  static func scheduledTimer(repeats: Bool, block: @escaping (TM1FakeTimer) -> Void) -> TM1FakeTimer {
    let timer = TM1FakeTimer(repeats: repeats, block: block)
    TM1FakeRunLoop.retainedTimers.append(timer)
    return timer
  }

  func fire() {
    guard isValid else { return }
    block(self)
    if !repeats { invalidate() }
  }

  func invalidate() { isValid = false }
}

/// MBProgressHUD's grace timer.
final class TM1HUD {
  var graceTimer: TM1FakeTimer?
  private(set) var shows = 0

  @inline(never) static func make() -> TM1HUD { TM1HUD() }

  func show() { shows += 1 }

  @inline(never)
  func scheduleGraceTimer() {
    graceTimer = TM1FakeTimer.scheduledTimer(repeats: false) { _ in self.show() }
  }

  @inline(never)
  func scheduleUnstoredGraceTimer() {
    _ = TM1FakeTimer.scheduledTimer(repeats: false) { _ in self.show() }
  }

  @inline(never)
  func scheduleWeakGraceTimer() {
    graceTimer = TM1FakeTimer.scheduledTimer(repeats: false) { [weak self] _ in self?.show() }
  }
}

final class TM1FoundationHUD: @unchecked Sendable {
  var graceTimer: Timer?
  private let lock = NSLock()
  private var shows = 0

  @inline(never) static func make() -> TM1FoundationHUD { TM1FoundationHUD() }

  func show() { lock.withLock { shows += 1 } }

  @inline(never)
  func scheduleGraceTimer() {
    graceTimer = Timer.scheduledTimer(withTimeInterval: 3600, repeats: false) { _ in self.show() }
  }

  @inline(never)
  func scheduleUnstoredGraceTimer() -> Timer {
    Timer.scheduledTimer(withTimeInterval: 3600, repeats: false) { _ in self.show() }
  }

  @inline(never)
  func scheduleWeakGraceTimer() {
    graceTimer = Timer.scheduledTimer(withTimeInterval: 3600, repeats: false) { [weak self] _ in self?.show() }
  }
}

// MARK: - YY-1 · a weak proxy between a timer and its target

/// `YYWeakProxy`.
final class YY1WeakProxy<Target: AnyObject>: @unchecked Sendable {
  weak var target: Target?
  init(_ target: Target) { self.target = target }
}

final class YY1Ticker {
  var timer: TM1FakeTimer?
  private(set) var ticks = 0

  @inline(never) static func make() -> YY1Ticker { YY1Ticker() }

  func tick() { ticks += 1 }

  @inline(never)
  func start() -> YY1WeakProxy<YY1Ticker> {
    let proxy = YY1WeakProxy(self)
    timer = TM1FakeTimer.scheduledTimer(repeats: true) { [proxy] _ in proxy.target?.tick() }
    return proxy
  }

  deinit { timer?.invalidate() }
}

final class YY1FoundationTicker: @unchecked Sendable {
  var timer: Timer?
  private let lock = NSLock()
  private var ticks = 0

  @inline(never) static func make() -> YY1FoundationTicker { YY1FoundationTicker() }

  func tick() { lock.withLock { ticks += 1 } }

  @inline(never)
  func start() -> YY1WeakProxy<YY1FoundationTicker> {
    let proxy = YY1WeakProxy(self)
    timer = Timer.scheduledTimer(withTimeInterval: 3600, repeats: true) { [proxy] _ in proxy.target?.tick() }
    return proxy
  }

  deinit { timer?.invalidate() }
}

// MARK: - YYC-1 · doubly linked LRU list

/// `_YYLinkedMapNode`: the links are `__unsafe_unretained`; only the map's dictionary retains.
final class YYC1LinkedMapNode<Key: Hashable, Value> {
  unowned(unsafe) var prev: YYC1LinkedMapNode?
  unowned(unsafe) var next: YYC1LinkedMapNode?
  let key: Key
  var value: Value
  init(key: Key, value: Value) {
    self.key = key
    self.value = value
  }
}

/// `_YYLinkedMap`.
final class YYC1LinkedMap<Key: Hashable, Value> {
  typealias Node = YYC1LinkedMapNode<Key, Value>
  var dic: [Key: Node] = [:]
  unowned(unsafe) var head: Node?
  unowned(unsafe) var tail: Node?

  @inline(never) static func make() -> YYC1LinkedMap { YYC1LinkedMap() }

  func insertAtHead(_ key: Key, _ value: Value) {
    let node = Node(key: key, value: value)
    dic[key] = node
    if let head {
      node.next = head
      head.prev = node
      self.head = node
    } else {
      head = node
      tail = node
    }
  }

  func removeAll() {
    head = nil
    tail = nil
    dic = [:]
  }
}

/// The naive node: both links strong.
final class YYC1StrongLinkedMapNode<Key: Hashable, Value> {
  var prev: YYC1StrongLinkedMapNode?
  var next: YYC1StrongLinkedMapNode?
  let key: Key
  var value: Value
  init(key: Key, value: Value) {
    self.key = key
    self.value = value
  }
}

final class YYC1StrongLinkedMap<Key: Hashable, Value> {
  typealias Node = YYC1StrongLinkedMapNode<Key, Value>
  var dic: [Key: Node] = [:]
  unowned(unsafe) var head: Node?
  unowned(unsafe) var tail: Node?

  @inline(never) static func make() -> YYC1StrongLinkedMap { YYC1StrongLinkedMap() }

  func insertAtHead(_ key: Key, _ value: Value) {
    let node = Node(key: key, value: value)
    dic[key] = node
    if let head {
      node.next = head
      head.prev = node
      self.head = node
    } else {
      head = node
      tail = node
    }
  }

  func removeAll() {
    head = nil
    tail = nil
    dic = [:]
  }
}

// MARK: - YYM-2 · model trees with parent back-pointers

final class YYM2Comment: Decodable {
  let id: Int
  var replies: [YYM2Comment]
  var parent: YYM2Comment? = nil

  enum CodingKeys: String, CodingKey {
    case id, replies
  }

  init(id: Int, replies: [YYM2Comment]) {
    self.id = id
    self.replies = replies
  }

  /// What the loader does after decoding: `reply.parent = comment`.
  func linkParents() {
    for reply in replies {
      reply.parent = self
      reply.linkParents()
    }
  }

  /// A tree of `depth` levels below the root, `fanOut` replies per comment.
  @inline(never)
  static func makeTree(depth: Int, fanOut: Int) -> YYM2Comment {
    var nextID = 0
    func make(_ level: Int) -> YYM2Comment {
      nextID += 1
      let id = nextID
      return YYM2Comment(id: id, replies: level == depth ? [] : (0..<fanOut).map { _ in make(level + 1) })
    }
    return make(0)
  }

  /// The same tree as JSON.
  static func json(depth: Int, fanOut: Int) -> String {
    var nextID = 0
    func make(_ level: Int) -> String {
      nextID += 1
      let replies = level == depth ? [] : (0..<fanOut).map { _ in make(level + 1) }
      return "{\"id\": \(nextID), \"replies\": [\(replies.joined(separator: ", "))]}"
    }
    return make(0)
  }

  var count: Int { 1 + replies.reduce(0) { $0 + $1.count } }
  var all: [YYM2Comment] { [self] + replies.flatMap(\.all) }
}

/// `ASLayout`: a weak back-pointer.
final class YYM2WeakComment {
  var replies: [YYM2WeakComment]
  weak var parent: YYM2WeakComment?

  init(replies: [YYM2WeakComment]) { self.replies = replies }

  @inline(never)
  static func makeTree(depth: Int, fanOut: Int) -> YYM2WeakComment {
    func make(_ level: Int) -> YYM2WeakComment {
      let comment = YYM2WeakComment(replies: level == depth ? [] : (0..<fanOut).map { _ in make(level + 1) })
      for reply in comment.replies { reply.parent = comment }
      return comment
    }
    return make(0)
  }

  var all: [YYM2WeakComment] { [self] + replies.flatMap(\.all) }
}

/// The encoder's `__unsafe_unretained NSMutableDictionary *dic` captured by its own block.
final class YYM2JSONObject {
  var storage: [String: Int] = [:]
  var setter: ((String, Int) -> Void)?

  @inline(never) static func make() -> YYM2JSONObject { YYM2JSONObject() }

  @inline(never)
  func installUnsafeSetter() {
    let dic = self
    setter = { [unowned(unsafe) dic] key, value in dic.storage[key] = value }
  }
}

// MARK: - BK-1 · control event handlers in an associated dictionary of sets

struct BK1ControlEvents: OptionSet {
  let rawValue: UInt
  static let touchUpInside = BK1ControlEvents(rawValue: 1 << 6)
}

/// `BKControlWrapper`: registered as a non-retained target; the side table keeps it alive.
final class BK1HandlerWrapper: Hashable {
  let events: BK1ControlEvents
  let handler: (BK1Control) -> Void
  init(events: BK1ControlEvents, handler: @escaping (BK1Control) -> Void) {
    self.events = events
    self.handler = handler
  }
  func invoke(_ sender: BK1Control) { handler(sender) }
  static func == (lhs: BK1HandlerWrapper, rhs: BK1HandlerWrapper) -> Bool { lhs === rhs }
  func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// The associated `NSMutableDictionary` of `@(controlEvents)` → `NSMutableSet` of wrappers.
final class BK1HandlerTable {
  var handlersByEvent: [UInt: Set<BK1HandlerWrapper>] = [:]
}

final class BK1Control {
  private(set) var highlights = 0

  func highlight() { highlights += 1 }

  func addEventHandler(_ handler: @escaping (BK1Control) -> Void, for events: BK1ControlEvents) {
    let table: BK1HandlerTable
    if let existing = Associations.value(on: self, key: "handlers") as? BK1HandlerTable {
      table = existing
    } else {
      table = BK1HandlerTable()
      Associations.set(table, on: self, key: "handlers")
    }
    table.handlersByEvent[events.rawValue, default: []].insert(BK1HandlerWrapper(events: events, handler: handler))
  }

  func removeEventHandlers(for events: BK1ControlEvents) {
    (Associations.value(on: self, key: "handlers") as? BK1HandlerTable)?.handlersByEvent[events.rawValue] = nil
  }

  func sendActions(for events: BK1ControlEvents) {
    let table = Associations.value(on: self, key: "handlers") as? BK1HandlerTable
    for wrapper in table?.handlersByEvent[events.rawValue] ?? [] { wrapper.invoke(self) }
  }
}

final class BK1Screen {
  let button = BK1Control()
  private(set) var submissions = 0

  @inline(never) static func make() -> BK1Screen { BK1Screen() }

  func submit() { submissions += 1 }
  func onTap(_ sender: BK1Control) { submissions += 1 }

  @inline(never)
  func bindStrongly() { button.addEventHandler({ _ in self.submit() }, for: .touchUpInside) }

  @inline(never)
  func bindUsingSender() { button.addEventHandler({ sender in sender.highlight() }, for: .touchUpInside) }

  @inline(never)
  func bindWeakly() { button.addEventHandler({ [weak self] _ in self?.submit() }, for: .touchUpInside) }

  @inline(never)
  func bindUnowned() { button.addEventHandler({ [unowned self] _ in self.submit() }, for: .touchUpInside) }

  @inline(never)
  func bindMethodReference() { button.addEventHandler(self.onTap, for: .touchUpInside) }
}

// MARK: - BK-2 · a gesture handler wrapping a user block

final class BK2TapRecognizer {
  enum State { case possible, recognized }
  var state = State.possible
  var handler: ((BK2TapRecognizer) -> Void)?
  init(handler: @escaping (BK2TapRecognizer) -> Void) { self.handler = handler }
  func recognize() {
    state = .recognized
    handler?(self)
  }
}

final class BK2View {
  var recognizers: [BK2TapRecognizer] = []

  /// `bk_whenTapped:`: the recognizer's handler wraps (captures) the user's block.
  @inline(never)
  func whenTapped(_ block: @escaping () -> Void) {
    recognizers.append(BK2TapRecognizer { recognizer in if recognizer.state == .recognized { block() } })
  }
}

final class BK2ViewHolder {
  let presentButton = BK2View()
}

final class BK2Screen: @unchecked Sendable {
  let viewHolder = BK2ViewHolder()
  private let lock = NSLock()
  private var presented = 0

  @inline(never) static func make() -> BK2Screen { BK2Screen() }

  func presentNext() { lock.withLock { presented += 1 } }

  /// The PromiseKit article's sample.
  @inline(never)
  func bindPresentButton() { viewHolder.presentButton.whenTapped { self.presentNext() } }

  /// P13: `[weak self]` only in the inner closure.
  @inline(never)
  func bindPresentButtonWeakInner() {
    viewHolder.presentButton.whenTapped { DispatchQueue.main.async { [weak self] in self?.presentNext() } }
  }

  @inline(never)
  func bindPresentButtonWeakly() { viewHolder.presentButton.whenTapped { [weak self] in self?.presentNext() } }
}

// MARK: - MLF-1 · a leak probe with a grace period

/// `MLeakedObjectProxy`: attached to a leaked object (strong association), holds it weakly, and
/// reports a late deallocation when the object, and so the association, goes away.
final class MLF1LeakedObjectProxy {
  weak var object: AnyObject?
  let onLateDeallocation: () -> Void
  init(object: AnyObject, onLateDeallocation: @escaping () -> Void) {
    self.object = object
    self.onLateDeallocation = onLateDeallocation
  }
  deinit { onLateDeallocation() }
}

/// MLeaksFinder's `willDealloc`: checks after a grace period, holding the object weakly.
enum MLF1LeakProbe {
  static let proxyKey = "MLF1LeakedObjectProxy"

  @inline(never)
  static func expectDeallocation(of object: AnyObject, within grace: TimeInterval, log: ScenarioEventLog) {
    let weakObject = ScenarioSendableWeak(object)
    DispatchQueue.global().asyncAfter(deadline: .now() + grace) {
      guard let object = weakObject.object else {
        log.append("deallocated")
        return
      }
      let proxy = MLF1LeakedObjectProxy(object: object) { log.append("deallocated late") }
      Associations.set(proxy, on: object, key: proxyKey)
      log.append("leaked")
    }
  }
}

final class MLF1ViewController: @unchecked Sendable {
  var view: MLF1View?
  @inline(never) static func make() -> MLF1ViewController { MLF1ViewController() }

  /// Fixture B: something else keeps the controller a little longer.
  @inline(never)
  func keepAlive(for delay: TimeInterval) {
    DispatchQueue.global().asyncAfter(deadline: .now() + delay) { _ = self.view }
  }

  /// Fixture C: a cycle of `length` objects through a view hierarchy back to the controller.
  @inline(never)
  func makeViewHierarchyCycle(length: Int) {
    let views = (1..<length).map { _ in MLF1View() }
    view = views[0]
    for (view, next) in zip(views, views.dropFirst()) { view.subview = next }
    views[views.count - 1].controller = self
  }
}

final class MLF1View {
  var subview: MLF1View?
  var controller: MLF1ViewController?
}

// MARK: - ALA-3 · request state enum with payloads

final class ALA3RetryToken {
  let action: () -> Void
  init(action: @escaping () -> Void) { self.action = action }
}

final class ALA3RetryPolicy {
  let limit = 3
}

/// `any Error` as a class.
final class ALA3RequestError: Error {
  let request: ALA3Request
  init(request: ALA3Request) { self.request = request }
}

/// `any Error` as a struct (boxed).
struct ALA3ValidationError: Error {
  let request: ALA3Request
  let code: Int
}

enum ALA3RequestState {
  case idle
  case running(ALA3RetryPolicy)
  case retrying(ALA3RetryToken)
  case finished(Result<[UInt8], any Error>)
  indirect case chained(ALA3RequestState, next: ALA3RetryPolicy)
}

final class ALA3Request: @unchecked Sendable {
  var state: ALA3RequestState = .idle
  private(set) var resumes = 0

  @inline(never) static func make() -> ALA3Request { ALA3Request() }

  func resume() { resumes += 1 }

  @inline(never)
  func scheduleRetry() { state = .retrying(ALA3RetryToken { self.resume() }) }

  @inline(never)
  func scheduleChainedRetry() { state = .chained(.retrying(ALA3RetryToken { self.resume() }), next: ALA3RetryPolicy()) }

  func fail() { state = .finished(.failure(ALA3RequestError(request: self))) }

  func failValidation() { state = .finished(.failure(ALA3ValidationError(request: self, code: 422))) }

  func succeed() { state = .finished(.success([1, 2, 3])) }
}

enum ALA3FoundationRequestState {
  case idle
  case retrying(DispatchWorkItem)
  case finished(Result<Data, any Error>)
}

final class ALA3FoundationRequest: @unchecked Sendable {
  var state: ALA3FoundationRequestState = .idle
  private let lock = NSLock()
  private var resumes = 0

  @inline(never) static func make() -> ALA3FoundationRequest { ALA3FoundationRequest() }

  func resume() { lock.withLock { resumes += 1 } }

  /// `let work = DispatchWorkItem { self.resume() }; state = .retrying(work)`.
  @inline(never)
  func scheduleRetry() -> DispatchWorkItem {
    let work = DispatchWorkItem { self.resume() }
    ScenarioDispatchHandlers.record([self], heldBy: work)
    state = .retrying(work)
    return work
  }
}

// MARK: - NC-1 · notification observers

/// A pure mirror of corelibs' block-observer NotificationCenter, where the token *is* the
/// receiver holding the block (`NSNotificationReceiver`).
final class NC1Receiver {
  let name: String
  let block: (String) -> Void
  init(name: String, block: @escaping (String) -> Void) {
    self.name = name
    self.block = block
  }
}

final class NC1NotificationCenter {
  nonisolated(unsafe) static let `default` = NC1NotificationCenter()
  var observers: [String: [NC1Receiver]] = [:]

  @inline(never) static func make() -> NC1NotificationCenter { NC1NotificationCenter() }

  func addObserver(forName name: String, using block: @escaping (String) -> Void) -> AnyObject {
    let receiver = NC1Receiver(name: name, block: block)
    observers[name, default: []].append(receiver)
    return receiver
  }

  func removeObserver(_ token: AnyObject) {
    for name in observers.keys { observers[name]?.removeAll { $0 === token } }
  }

  func post(name: String) {
    for receiver in observers[name] ?? [] { receiver.block(name) }
  }
}

/// `SDImageCache` / `YYMemoryCache` registering for memory warnings.
final class NC1MemoryCache {
  var token: AnyObject?
  weak var center: NC1NotificationCenter?
  private(set) var purges = 0

  @inline(never) static func make(center: NC1NotificationCenter) -> NC1MemoryCache { NC1MemoryCache(center: center) }

  init(center: NC1NotificationCenter) { self.center = center }

  func removeAll() { purges += 1 }

  @inline(never)
  func observeStrongly() {
    token = center?.addObserver(forName: "memoryWarning") { _ in self.removeAll() }
  }

  @inline(never)
  func observeStronglyWithoutToken() {
    _ = center?.addObserver(forName: "memoryWarning") { _ in self.removeAll() }
  }

  @inline(never)
  func observeWeakly() {
    token = center?.addObserver(forName: "memoryWarning") { [weak self] _ in self?.removeAll() }
  }

  func stopObserving() {
    if let token { center?.removeObserver(token) }
    token = nil
  }
}

final class NC1FoundationMemoryCache: @unchecked Sendable {
  var token: (any NSObjectProtocol)?
  private let lock = NSLock()
  private var purges = 0

  @inline(never) static func make() -> NC1FoundationMemoryCache { NC1FoundationMemoryCache() }

  func removeAll() { lock.withLock { purges += 1 } }
  var purgeCount: Int { lock.withLock { purges } }

  @inline(never)
  func observeStrongly(_ name: Notification.Name) {
    token = NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { _ in self.removeAll() }
  }

  @inline(never)
  func observeWeakly(_ name: Notification.Name) {
    token = NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { [weak self] _ in self?.removeAll() }
  }

  func stopObserving() {
    if let token { NotificationCenter.default.removeObserver(token) }
    token = nil
  }
}

// MARK: - LIB-1 · non-escaping closures and scope-exit blocks

protocol LIB1Then: AnyObject {}

extension LIB1Then {
  /// Then's `then`: a non-escaping configuration closure.
  @discardableResult
  func then(_ block: (Self) -> Void) -> Self {
    block(self)
    return self
  }
}

final class LIB1Label: LIB1Then {
  var text = ""
  var owner: LIB1Screen?
}

final class LIB1Screen: @unchecked Sendable {
  let title = "Scenarios"
  var label: LIB1Label?
  let loggingQueue = DispatchQueue(label: "LIB1Screen.logging")
  var items = [1, 2, 3]
  private(set) var events: [String] = []

  @inline(never) static func make() -> LIB1Screen { LIB1Screen() }

  func cleanup() { events.append("cleanup") }
  func flush() { events.append("flush") }
  func handle(_ item: Int) { events.append("item \(item)") }

  /// Then, `defer`, `dispatch_sync` and `forEach`: nothing escapes.
  @inline(never)
  func configure() {
    defer { self.cleanup() }
    let label = LIB1Label().then { $0.text = self.title }
    loggingQueue.sync { self.flush() }
    items.forEach { self.handle($0) }
    events.append(label.text)
  }

  /// The control: the configured label is stored, and its `owner` is strong.
  @inline(never)
  func configureStoredLabel() {
    label = LIB1Label().then { $0.owner = self }
  }
}

// MARK: - P12 (DD-3 variant) · a lazy closure property

final class P12Formatter {
  let prefix = "[DD]"
  lazy var format: (String) -> String = { self.prefix + " " + $0 }
  @inline(never) static func make() -> P12Formatter { P12Formatter() }
}
