import CLeakRuntime
import XCTest

/// The registry of the tasks `swift_task_create` made, which finds tasks that never end: read
/// oldest first, also once its ring has gone round, with each task's job id, so that an address a
/// later task reuses is never read with an earlier task's creation stack.
final class TaskRegistryTests: XCTestCase {
  func testRegistry_afterItsRingWentRound_readsTheLatestTaskLast_withItsJobID() async throws {
    let capacity = Int(CLEAK_TASK_REGISTRY_CAPACITY)
    // One at a time: with glibc's malloc each reuses the memory of the one before, as the latest
    // then does (a sanitizer's allocator holds freed memory back first).
    for _ in 0..<(capacity + 1_000) {
      _ = await Task.detached { 1 }.value
    }
    let latest = Task.detached { try? await Task.sleep(for: .seconds(60)) }
    defer { latest.cancel() }
    let address = unsafeBitCast(latest, to: UInt.self)
    let jobID = try XCTUnwrap(UnsafePointer<cleak_async_task_prefix>(bitPattern: address)).pointee.id

    var entries = [cleak_tracked_object](repeating: cleak_tracked_object(), count: capacity)
    let count = entries.withUnsafeMutableBufferPointer { cleak_task_registry_copy($0.baseAddress, $0.count) }
    XCTAssertEqual(count, capacity)
    let last = try XCTUnwrap(entries[..<count].last)
    XCTAssertEqual(last.object, address, "the latest task is read last")
    XCTAssertEqual(UInt32(truncatingIfNeeded: last.size), jobID)
    XCTAssertLessThan(UInt32(truncatingIfNeeded: entries[0].size), jobID, "the oldest task is read first")
  }
}
