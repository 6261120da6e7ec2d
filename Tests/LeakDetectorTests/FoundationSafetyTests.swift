import Foundation
import LeakDetector
import StrippedFixtures
import XCTest

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Reflection must degrade to diagnostics, never crash, on whatever Foundation keeps inside.
final class FoundationSafetyTests: XCTestCase {
  func testDetector_everythingReachableFromBusyFoundationObjects_isWalkedWithoutCrashing() throws {
    // Use Foundation the way apps do, so its internals hold real state.
    let encoder = JSONEncoder()
    _ = try encoder.encode(["key": [1, 2, 3]])
    _ = try JSONSerialization.jsonObject(with: Data(#"{"a": [1, {"b": null}]}"#.utf8))
    let formatter = DateFormatter()
    formatter.dateFormat = "yyyy-MM-dd"
    _ = formatter.string(from: Date())
    let url = URL(fileURLWithPath: "/tmp/leak-detector/safety.json")
    _ = url.path
    let center = NotificationCenter()
    let observer = center.addObserver(forName: .init("ping"), object: nil, queue: nil) { _ in }
    center.post(name: .init("ping"), object: nil)
    let queue = OperationQueue()
    queue.isSuspended = true
    queue.addOperation { print("never runs while suspended") }
    let operation = BlockOperation {}
    operation.completionBlock = { print(operation.isFinished) }
    let session = URLSession(configuration: .ephemeral)
    let task = session.dataTask(with: URL(fileURLWithPath: "/dev/null"))
    let timer = Timer(timeInterval: 60, repeats: false) { _ in }
    let work = DispatchWorkItem { print("work") }

    let candidates: [AnyObject] = [
      encoder, formatter, center, queue, operation, session, task, timer, work, NotificationCenter.default,
      OperationQueue.main, URLSession.shared, Bundle.main, ProcessInfo.processInfo, FileManager.default,
      url as NSURL, NSMutableDictionary(dictionary: ["k": NSMutableArray(array: [1, "two"])]), observer as AnyObject,
    ]
    let detector = RetainCycleDetector()
    for candidate in candidates { detector.addCandidate(candidate) }
    let report = detector.findRetainCycleReport()
    XCTAssertGreaterThan(report.objectCount, candidates.count, "the walk should reach Foundation's internals")
    // The completion block that captures its own operation is a real, permanent cycle on Linux
    // (Documentation/LeakIdioms.md, P6): the detector sees it through Operation's stored property.
    XCTAssertTrue(
      report.cycles.contains { cycle in cycle.elements.contains { $0.typeName == "Foundation.BlockOperation" } },
      "\(report.cycles.map(\.description))")
    queue.cancelAllOperations()
    queue.isSuspended = false
    task.cancel()
    session.invalidateAndCancel()
    timer.invalidate()
    center.removeObserver(observer)
    operation.completionBlock = nil
  }
}

final class StrippedMetadataTests: XCTestCase {
  func testReflect_typeWithoutReflectionMetadata_saysSoInsteadOfGuessing() {
    let node = escaping(StrippedNode())
    node.next = node
    let reflection = reflect(node)
    XCTAssertEqual(reflection.references, [], "no edges may be invented without metadata")
    XCTAssertTrue(
      reflection.diagnostics.contains { $0.contains("StrippedFixtures.StrippedNode has no reflection metadata") },
      "\(reflection.diagnostics)")
    let detector = RetainCycleDetector()
    detector.addCandidate(node)
    XCTAssertEqual(detector.findRetainCycles(), [])
    XCTAssertFalse(detector.diagnostics.isEmpty)
    node.next = nil
  }
}
