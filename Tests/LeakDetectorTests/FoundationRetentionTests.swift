import Foundation
import LeakDetector
import XCTest

/// Library mechanisms that retain objects outside ordinary stored properties
/// (Documentation/LeakIdioms.md, P1, P5, P8, P9): what the detector sees, and what it says it
/// cannot see.
final class FoundationRetentionTests: XCTestCase {
  final class Downloader: @unchecked Sendable {
    let queue = OperationQueue()
    var completed = 0

    @inline(never)
    func enqueue() {
      queue.isSuspended = true
      queue.addOperation { self.completed += 1 }
    }
  }

  func testOperationQueue_pendingOperationCapturingItsOwner_isACycle() {
    let downloader = escaping(Downloader())
    downloader.enqueue()
    // Each pending operation also forms a cycle inside Foundation with its scheduling work item.
    let cycles = cycleDescriptions(from: downloader).filter { $0.contains("Downloader") }
    XCTAssertEqual(
      cycles,
      [
        "Foundation.BlockOperation._block -> closure #1 in FoundationRetentionTests.Downloader.enqueue().capture #0: Downloader"
          + " -> FoundationRetentionTests.Downloader.queue"
          + " -> Foundation.OperationQueue.__firstOperation._value -> Foundation.BlockOperation"
      ])
    downloader.queue.cancelAllOperations()
    downloader.queue.isSuspended = false
    downloader.queue.waitUntilAllOperationsAreFinished()
    XCTAssertEqual(cycleDescriptions(from: downloader).filter { $0.contains("Downloader") }, [], "finished operations are released")
  }

  final class Poller: @unchecked Sendable {
    var work: DispatchWorkItem?
    var ticks = 0

    @inline(never)
    func schedule() {
      work = DispatchWorkItem { self.ticks += 1 }
    }
  }

  func testDispatchWorkItem_blockIsReadFromLibdispatch() {
    let poller = escaping(Poller())
    poller.schedule()
    defer { poller.work = nil }
    let detector = RetainCycleDetector()
    detector.addCandidate(poller)
    XCTAssertEqual(
      detector.findRetainCycles().map(\.description),
      [
        "Dispatch.DispatchWorkItem.block -> closure #1 in LeakDetectorTests.FoundationRetentionTests.Poller.schedule().capture #0: Poller"
          + " -> LeakDetectorTests.FoundationRetentionTests.Poller.work -> Dispatch.DispatchWorkItem"
      ])
    XCTAssertFalse(detector.diagnostics.contains { $0.message.contains("DispatchWorkItem") }, "\(detector.diagnostics)")
  }

  final class Ticker: @unchecked Sendable {
    var timer: Timer?
    var count = 0

    @inline(never)
    func start() {
      timer = Timer(timeInterval: 60, repeats: true) { _ in self.count += 1 }
    }
  }

  func testTimerStoredByItsTarget_isACycleThroughItsBlock() {
    let ticker = escaping(Ticker())
    ticker.start()
    let detector = RetainCycleDetector()
    detector.addCandidate(ticker)
    let cycles = detector.findRetainCycles().map(normalized)
    XCTAssertEqual(cycles.count, 1, "\(cycles)")
    XCTAssertTrue(cycles[0].hasPrefix("Foundation.Timer._fire -> "), "\(cycles)")
    XCTAssertTrue(
      detector.diagnostics.contains { $0.message.hasPrefix("Foundation.Timer: a scheduled or fired Timer") }, "\(detector.diagnostics)")
    ticker.timer?.invalidate()
  }
}
