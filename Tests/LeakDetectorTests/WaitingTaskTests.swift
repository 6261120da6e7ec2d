import HeapGraph
import LeakDetector
import LeakTestSupport
import XCTest

/// Tasks that nothing refers to are found through the registry of the tasks `swift_task_create`
/// made, and the continuation a waiting task is resumed through is an edge from its holder.
final class WaitingTaskTests: XCTestCase {
  /// The snapshot of the live heap after `countAStream(into:finishing:)` started its task.
  /// The continuation is finished once the snapshot is taken, so that the task ends.
  private func snapshotAfterCounting(finishing: Bool) -> (snapshot: HeapSnapshot, total: StreamTotal) {
    let total = StreamTotal()
    let continuation = countAStream(into: total, finishing: finishing)
    defer { continuation.finish() }
    return (AllocationTracker.snapshot(), total)
  }

  func testTaskWaitingOnAStreamNobodyFeeds_isFound_withItsClosureAndTheContinuationThatResumesIt() throws {
    let (snapshot, total) = snapshotAfterCounting(finishing: false)
    XCTAssertEqual(total.count.load(ordering: .relaxed), 1)
    let graph = ObjectGraph(snapshot)
    let totalAddress = UInt64(UInt(bitPattern: Unmanaged.passUnretained(total).toOpaque()))
    let tasks = graph.nodes.filter { node in
      graph.kind(of: node) == .task
        && graph.strongReferences(of: node).contains { edge in
          edge.label == "closure" && graph.strongReferences(of: edge.target).contains { graph.address(of: $0.target) == totalAddress }
        }
    }
    XCTAssertEqual(tasks.count, 1, "the waiting task, found though nothing captured refers to it")
    guard let task = tasks.first else { return }
    let holders = graph.nodes.filter { node in graph.strongReferences(of: node).contains { $0.target == task } }
    let continuation = holders.filter { graph.typeName(of: $0).hasPrefix("Swift.AsyncStream<Swift.Int>._Storage") }
    XCTAssertEqual(continuation.count, 1, "the stream's storage holds the continuation that resumes the task")
    XCTAssertTrue(
      graph.strongReferences(of: continuation[0]).contains { $0.target == task && $0.label == "state.continuations[0].context" })
    withExtendedLifetime(total) {}
  }

  func testTaskOnAFinishedStream_completes_andNoTaskIsLeftToFind() {
    let (snapshot, total) = snapshotAfterCounting(finishing: true)
    XCTAssertEqual(total.count.load(ordering: .relaxed), 1)
    let graph = ObjectGraph(snapshot)
    let totalAddress = UInt64(UInt(bitPattern: Unmanaged.passUnretained(total).toOpaque()))
    XCTAssertFalse(graph.nodes.contains { graph.address(of: $0) == totalAddress }, "no waiting task holds it")
  }
}
