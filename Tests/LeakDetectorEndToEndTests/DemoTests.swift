import Foundation
import LeakTestSupport
import XCTest

/// The README's main job end to end: FeedApp leaks, its tracker captures a snapshot, and
/// `leak-detector analyze` reports the cycles with their allocation sites.
final class DemoTests: XCTestCase {
  func testDemo_trackedLeaksAreCapturedAndAnalysedWithAllocationSites() throws {
    let snapshot = NSTemporaryDirectory() + "feed-app-\(UUID().uuidString).json"
    defer { try? FileManager.default.removeItem(atPath: snapshot) }
    let demo = try FeedAppDemo.program().run([snapshot])
    XCTAssertEqual(demo.status, 0, demo.standardOutput)
    XCTAssertTrue(demo.standardOutput.contains("objects of the screen are still alive"), demo.standardOutput)
    XCTAssertFalse(demo.standardOutput.contains("2 FeedApp.FeedViewModel"), "the [weak self] view model is freed")

    let analysis = try BuiltProgram("leak-detector").run(["analyze", snapshot])
    XCTAssertEqual(analysis.status, 2, analysis.standardOutput)
    for expected in [
      "4 retain cycles in 3 strongly connected components",
      "FeedViewModel.onUpdate → closure #1 in FeedViewModel.bind(to:).capture #1: FeedViewModel → FeedViewModel",
      "Network.session → Session.delegate → Network",
      "ImageRequest.completion → closure #1 in ImageLoader.load(_:).capture #1: ImageRequest → ImageRequest",
      "- Session (object",
    ] {
      XCTAssertTrue(analysis.standardOutput.contains(expected), "missing \(expected) in\n\(analysis.standardOutput)")
    }
    // The cycles' objects (what holds the memory lists other sites, the runtime's among them).
    let sites = analysis.standardOutput.split(separator: "\n").filter { $0.contains("allocated at") && $0.contains(" - ") }
    XCTAssertGreaterThanOrEqual(sites.count, 8)
    XCTAssertTrue(sites.allSatisfy { $0.contains("(main.swift:") }, "every site has a line:\n\(sites.joined(separator: "\n"))")
    // Network.init allocates the session; an optimized build may inline it into its caller.
    XCTAssertTrue(
      sites.contains {
        $0.contains("- Session (") && ($0.contains("at Network.init()") || $0.contains("at showAndDismissFeedScreen()"))
      }, sites.joined(separator: "\n"))
  }
}
