import HeapGraph
import LeakDetector

/// How leak checks in tests decide and report.
///
/// ```swift
/// var configuration = LeakCheckConfiguration()
/// configuration.gracePeriod = .milliseconds(300)
/// configuration.allowedTypes.append("MyApp.ImageCache")
/// ```
public struct LeakCheckConfiguration: Sendable {
  /// Set this environment variable to `1` to turn every leak check off for a run.
  public static let disablingEnvironmentVariable = "LEAK_DETECTOR_DISABLE"

  /// How long a tracked object may take to be deallocated after the test before it counts as
  /// leaked; the main run loop is drained meanwhile. MLeaksFinder waits 2 s and LeakCanary 5 s in
  /// apps; tests deallocate synchronously, so the default is short.
  public var gracePeriod: Duration = .milliseconds(100)
  /// The longest retain cycle reported, in objects.
  public var maxCycleLength = CycleFinder.Configuration.defaultMaxCycleLength
  /// Types that may outlive a test: caches, singletons, the test harness, library internals, as
  /// `TypePattern`s (`"Foundation.*"` matches a prefix; a pattern without `*` or `?` the whole
  /// name).
  public var allowedTypes: [String] = LeakCheckConfiguration.standardAllowedTypes
  /// References that legitimately keep objects alive, as `"SourceType.label"` patterns (matched as
  /// a `TypePattern`: `"ImageCache.entries*"`): an object held through such a reference is not
  /// reported.
  public var allowedReferences: [String] = []
  /// Tasks that may still wait when a test ends (a server's accept loop the suite shares), as
  /// `TypePattern`s matched against the function a task waits in or the closure it runs
  /// (`"closure #1 in MyApp.Server.run()"`, `"*Server.run()"`).
  public var allowedTasks: [String] = []
  /// Types known to leak (a known issue), as `TypePattern`s: reported as a note, not as a failure.
  public var knownLeaks: [String] = []
  /// Known leaks in the suppression format `leak-detector run --suppressions` reads (its `type`
  /// rules apply here), so that one file serves the CLI and the tests:
  ///
  /// ```swift
  /// configuration.knownLeakRules = try Suppressions(parsing: String(contentsOfFile: "leaks.suppressions"), name: "leaks.suppressions")
  /// ```
  public var knownLeakRules = Suppressions()
  /// In generation mode, capture allocation stacks (to report where leaked objects were made).
  public var capturesAllocationStacks = true
  /// The time bounds and attempts of the capture child that reads the heap to explain survivors.
  public var captureLimits = CaptureLimits()

  /// Library and runtime types that outlive tests by design: `TypePattern.frameworkTypes`.
  public static let standardAllowedTypes = TypePattern.frameworkTypes.map(\.pattern)

  public init() {}

  /// Whether checks run (the environment variable can turn them off).
  public var isEnabled: Bool {
    (getenv(Self.disablingEnvironmentVariable).map { String(cString: $0) } ?? "") != "1"
  }

  func isAllowed(type name: String) -> Bool { allowedTypes.contains { TypePattern($0).matches(name) } }
  func isKnownLeak(type name: String) -> Bool {
    knownLeaks.contains { TypePattern($0).matches(name) } || knownLeakRules.suppresses(type: name)
  }
  func isAllowed(step: String) -> Bool { allowedReferences.contains { TypePattern($0).matches(step) } }
  /// Whether `task` may outlive the test: ``allowedTasks`` names it, or ``allowedTypes`` does (a
  /// closure of the test frameworks, `closure #1 in Testing.Runner…`, runs another test).
  func isAllowed(_ task: WaitingTask) -> Bool {
    let names = [task.waitsIn] + task.runs
    return (allowedTasks + allowedTypes).contains { pattern in names.contains { TypePattern(pattern).matches($0) } }
  }
}

#if canImport(Glibc)
  import Glibc
#endif
