// The Swift code of the documentation articles (Sources/*/*.docc), compiled here and checked
// against the articles by ArticleSnippetTests: each region between `// snippet:` and
// `// end snippet` is one article's code block, verbatim. The XCTest and Swift Testing examples
// run as tests, and pass.

import Foundation
import HeapGraph
import LeakDetectorTesting
import Testing
import XCTest

/// The articles' screen: shown, it makes a few objects; dismissed, it lets them go.
final class FeedScreen {
  private var rows: [ProfileViewModel] = []

  func show() { rows = (0..<3).map { _ in ProfileViewModel() } }
  func dismiss() { rows = [] }
}

// snippet: CheckingForLeaksInTests XCTest
final class ProfileScreenTests: XCTestCase {
  func testProfileScreen_releasesItsViewModel() {
    let viewModel = trackForLeaks(ProfileViewModel())
    viewModel.bind(to: ProfileView())
    viewModel.unbind()
  }
}
// end snippet

// snippet: CheckingForLeaksInTests LeakTestCase
final class FeedScreenTests: LeakTestCase {
  func testFeedScreen_showAndDismiss_leavesNothingBehind() {
    let screen = FeedScreen()
    screen.show()
    screen.dismiss()
  }
}
// end snippet

// snippet: CheckingForLeaksInTests Swift Testing
@Test(.detectsLeaks)
func profileScreenReleasesItsViewModel() {
  let viewModel = trackForLeaks(ProfileViewModel())
  viewModel.bind(to: ProfileView())
  viewModel.unbind()
}
// end snippet

/// The articles' server: it answers a request and keeps the last three responses.
final class FeedServer: @unchecked Sendable {
  static let shared = FeedServer()
  private var recent: [FeedResponse] = []

  func handle(path: String) {
    recent.append(FeedResponse(path: path))
    if recent.count > 3 { recent.removeFirst() }
  }
}

// snippet: CheckingForLeaksInTests growth
final class FeedServerTests: XCTestCase {
  func testFeedServer_handlingRequests_keepsNothingPerRequest() {
    expectNoHeapGrowth(iterations: 5, warmUp: 3) {
      FeedServer.shared.handle(path: "/feed")
    }
  }
}
// end snippet

func articleConfiguration() -> LeakCheckConfiguration {
  // snippet: CheckingForLeaksInTests configuration
  var configuration = LeakCheckConfiguration()
  configuration.gracePeriod = .milliseconds(300)
  configuration.allowedReferences = ["ImageCache.entries*"]
  configuration.knownLeaks = ["LegacyKit.Session"]
  // end snippet
  return configuration
}

// snippet: FindingRetainCyclesInARunningProgram detector
func printCycles(holding viewModel: AnyObject) {
  let detector = RetainCycleDetector()
  detector.addCandidate(viewModel)
  for cycle in detector.findRetainCycles() {
    print(cycle.readableDescription)
  }
}
// end snippet

// snippet: FindingRetainCyclesInARunningProgram tracker
func captureScreenLeaks(to path: String, showAndDismiss: () -> Void) throws {
  AllocationTracker.start(.init(capturesStacks: true))
  defer { AllocationTracker.stop() }
  let generation = AllocationTracker.markGeneration()
  showAndDismiss()
  let snapshot = AllocationTracker.snapshot(inGeneration: generation, process: "FeedApp")
  try FileBytes.writeAtomically(snapshot.jsonBytes(), to: path)
}
// end snippet

// snippet: ReadingAReport code
func leakReport(ofSnapshotAt path: String) throws -> String {
  let snapshot = try HeapSnapshot(jsonBytes: FileBytes.read(path))
  let analysis = HeapAnalysis(graph: ObjectGraph(snapshot))
  return analysis.renderText()
}
// end snippet

// snippet: GatingLeaksInCI code
func gateVerdict(findings: [HeapFinding], baselineAt path: String) throws -> GateOutcome.Verdict {
  let baseline = try Baseline(jsonBytes: FileBytes.read(path))
  let outcome = GateOutcome(findings: findings, baseline: baseline)
  print(outcome.renderText(baseline: path), terminator: "")
  return outcome.verdict
}
// end snippet
