import LeakDetector
import Testing
import XCTest

/// One generation-mode leak check: starts the allocation tracker if it is not running and a
/// fresh generation for the test's body; ``finish(location:testCase:excluding:)`` reports what
/// the body allocated that is still alive. The XCTest and Swift Testing entry points, sync and
/// async, all run their body between the two.
struct GenerationCheck {
  let configuration: LeakCheckConfiguration
  private let generation: Int
  private let startedTracker: Bool

  /// Begins a check, or returns `nil` when checks are disabled.
  init?(configuration: LeakCheckConfiguration) {
    guard configuration.isEnabled else { return nil }
    self.configuration = configuration
    startedTracker = !AllocationTracker.isRunning
    if startedTracker { AllocationTracker.start(.init(capturesStacks: configuration.capturesAllocationStacks)) }
    generation = AllocationTracker.markGeneration()
  }

  /// Reports the survivors of the body's generation at their allocation sites (or `location`),
  /// except the objects in `excluding` (watched ones, reported at their own line) and, in a Swift
  /// Testing test, those another test allocated meanwhile, then stops the tracker if this check
  /// started it.
  func finish(location: (file: String, line: Int), testCase: XCTestCase? = nil, excluding: Set<UInt> = []) {
    AllocationTracker.markGeneration()  // what the check itself allocates is not the test's
    let runningTest = Test.current.map { (name: $0.name, fileName: $0.sourceLocation.fileName) }
    let findings = LeakChecker(configuration: configuration).check(generation: generation, runningTest: runningTest)
    LeakReporting.report(findings.filter { !excluding.contains($0.address) }, otherwiseAt: location, testCase: testCase)
    cancel()
  }

  /// Stops the tracker if this check started it, without reporting (the body threw).
  func cancel() {
    if startedTracker { AllocationTracker.stop() }
  }
}
