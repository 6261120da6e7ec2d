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
  /// Types that may outlive a test: caches, singletons, the test harness, library internals. A
  /// pattern ending in `*` matches a prefix (`"Foundation.*"`); otherwise the whole name.
  public var allowedTypes: [String] = LeakCheckConfiguration.standardAllowedTypes
  /// References that legitimately keep objects alive, as `"SourceType.label"` patterns (`*`
  /// matches a prefix): an object held through such a reference is not reported.
  public var allowedReferences: [String] = []
  /// Types known to leak (a known issue): reported as a note, not as a failure.
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

  /// Library and runtime types that outlive tests by design.
  public static let standardAllowedTypes = [
    "Swift.*", "_Concurrency.*", "Foundation.*", "FoundationEssentials.*", "FoundationInternationalization.*",
    "FoundationNetworking.*", "Dispatch.*", "XCTest.*", "Testing.*", "Synchronization.*", "LeakDetector.*",
    "LeakDetectorTesting.*",
  ]

  public init() {}

  /// Whether checks run (the environment variable can turn them off).
  public var isEnabled: Bool {
    (getenv(Self.disablingEnvironmentVariable).map { String(cString: $0) } ?? "") != "1"
  }

  func isAllowed(type name: String) -> Bool { Self.matches(name, allowedTypes) }
  func isKnownLeak(type name: String) -> Bool { Self.matches(name, knownLeaks) || knownLeakRules.suppresses(type: name) }
  func isAllowed(step: String) -> Bool { Self.matches(step, allowedReferences) }

  static func matches(_ name: String, _ patterns: [String]) -> Bool {
    patterns.contains { pattern in
      pattern.hasSuffix("*") ? name.hasPrefix(pattern.dropLast()) : name == pattern
    }
  }
}

#if canImport(Glibc)
  import Glibc
#endif
