import Foundation
import Testing

/// A Swift Testing trait that checks a test (or every test of a suite) for leaks: everything
/// allocated during the test and still alive after it fails the test (generation mode, top-most
/// objects only, allow list applied), and so does every object passed to ``trackForLeaks(_:sourceLocation:)``
/// that outlives it, at the line where it was tracked.
///
/// ```swift
/// @Test(.detectsLeaks) func profileScreenReleasesItsViewModel() {
///   let viewModel = trackForLeaks(ProfileViewModel())
///   viewModel.load()
/// }
/// ```
///
/// The allocation tracker sees the whole process, so leak-checked tests run one at a time. Tests
/// without the trait that run in parallel allocate into a checked test's generation: what their
/// allocation stacks name as theirs, and the tasks the runner makes, are left out; what they
/// allocate from code that names no test is not: mark such suites `.serialized` with the checked
/// ones, or run them in a separate process.
public struct LeakDetectionTrait: TestTrait, SuiteTrait, TestScoping {
  public var configuration: LeakCheckConfiguration
  public var isRecursive: Bool { true }

  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    guard testCase != nil || !test.isSuite, configuration.isEnabled else {
      try await function()
      return
    }
    await LeakCheckSerializer.shared.acquire()
    let scope = LeakScope()
    do {
      try await LeakScope.$current.withValue(scope) {
        try await checkingGeneration(configuration: configuration, location: location(of: test), scope: scope) {
          try await function()
        }
      }
    } catch {
      await LeakCheckSerializer.shared.release()
      throw error
    }
    LeakReporting.report(LeakChecker(configuration: configuration).check(scope.watched), otherwiseAt: location(of: test), testCase: nil)
    await LeakCheckSerializer.shared.release()
  }

  private func location(of test: Test) -> (file: String, line: Int) {
    (test.sourceLocation.filePath, test.sourceLocation.line)
  }
}

extension Trait where Self == LeakDetectionTrait {
  /// Checks the test (or each test of the suite) for leaks with the default configuration.
  public static var detectsLeaks: Self { LeakDetectionTrait(configuration: LeakCheckConfiguration()) }

  /// Checks the test (or each test of the suite) for leaks with `configuration`.
  public static func detectsLeaks(_ configuration: LeakCheckConfiguration) -> Self {
    LeakDetectionTrait(configuration: configuration)
  }
}

/// Registers `object` to be checked when the enclosing `.detectsLeaks` test (or
/// ``withLeakChecking(_:sourceLocation:_:)``) ends; returns `object`.
@discardableResult
public func trackForLeaks<Object: AnyObject>(_ object: Object, sourceLocation: SourceLocation = #_sourceLocation) -> Object {
  guard let scope = LeakScope.current else {
    Issue.record(
      "trackForLeaks(_:) needs the .detectsLeaks trait on the test or an enclosing withLeakChecking { }",
      sourceLocation: sourceLocation)
    return object
  }
  scope.watch(
    LeakChecker.WatchedObject(
      object: object, address: UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque()),
      typeName: _typeName(type(of: object), qualified: true), file: sourceLocation.filePath, line: sourceLocation.line))
  return object
}

/// Checks that everything allocated in `body` is gone once it returns, and every object passed to
/// ``trackForLeaks(_:sourceLocation:)`` inside it; for async Swift Testing tests.
public func withLeakChecking<Result>(
  _ configuration: LeakCheckConfiguration = LeakCheckConfiguration(), sourceLocation: SourceLocation = #_sourceLocation,
  _ body: () async throws -> Result
) async rethrows -> Result {
  try await LeakCheckSerializer.shared.exclusively(if: configuration.isEnabled) {
    let scope = LeakScope()
    let result = try await LeakScope.$current.withValue(scope) {
      try await checkingGeneration(
        configuration: configuration, location: (sourceLocation.filePath, sourceLocation.line), scope: scope, body)
    }
    LeakReporting.report(
      LeakChecker(configuration: configuration).check(scope.watched), otherwiseAt: (sourceLocation.filePath, sourceLocation.line),
      testCase: nil)
    return result
  }
}

/// The async form of ``checkingGeneration(configuration:location:testCase:_:)``; objects watched
/// in `scope` are left to their own check, at the line where they were watched.
func checkingGeneration<Result>(
  configuration: LeakCheckConfiguration, location: (file: String, line: Int), scope: LeakScope,
  _ body: () async throws -> Result
) async rethrows -> Result {
  guard let check = GenerationCheck(configuration: configuration) else { return try await body() }
  let result: Result
  do { result = try await body() } catch {
    check.cancel()
    throw error
  }
  check.finish(location: location, excluding: Set(scope.watched.map(\.address)))
  return result
}

/// The objects watched (passed to `trackForLeaks`) within one leak-checked test.
final class LeakScope: Sendable {
  @TaskLocal static var current: LeakScope?

  private let entries = Locked<[LeakChecker.WatchedObject]>([])

  func watch(_ entry: LeakChecker.WatchedObject) {
    entries.withLock { $0.append(entry) }
  }

  var watched: [LeakChecker.WatchedObject] { entries.withLock { $0 } }
}

/// Lets one leak-checked test run at a time: the tracker's generations are process-wide.
actor LeakCheckSerializer {
  static let shared = LeakCheckSerializer()
  /// Whether the current task runs inside ``exclusively(if:_:)``.
  @TaskLocal private static var isHeldByThisTask = false
  private var isHeld = false
  private var waiters: [CheckedContinuation<Void, Never>] = []

  func acquire() async {
    if !isHeld {
      isHeld = true
      return
    }
    await withCheckedContinuation { waiters.append($0) }
  }

  func release() {
    if waiters.isEmpty {
      isHeld = false
    } else {
      waiters.removeFirst().resume()
    }
  }

  /// Runs `body` while no other leak check runs, when `condition` holds (the check is enabled)
  /// and the caller is not inside a check already (a `.detectsLeaks` test, `withLeakChecking`),
  /// which has waited.
  nonisolated func exclusively<Result>(if condition: Bool, _ body: () async throws -> Result) async rethrows -> Result {
    guard condition, LeakScope.current == nil, !Self.isHeldByThisTask else { return try await body() }
    await acquire()
    do {
      let result = try await Self.$isHeldByThisTask.withValue(true) { try await body() }
      await release()
      return result
    } catch {
      await release()
      throw error
    }
  }
}
