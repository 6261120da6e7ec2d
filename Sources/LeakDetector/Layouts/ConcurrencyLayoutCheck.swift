import CLeakRuntime
import HeapGraph
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The check of the concurrency runtime's task layouts (``ConcurrencyLayout``, the async task
/// header of `SwiftConcurrencyLayout.h`) against a task of its own, once, before the first
/// capture reads a task: a detached task that waits on a checked continuation is read as the
/// readers read a waiting task (its job flags and status, the closure it runs, where it waits,
/// the canary that holds its continuation), then resumed.
///
/// When a fact does not match, what tasks hold and where they wait is not read, and a capture
/// says why, once:
///
/// ```text
/// the concurrency runtime's task layouts are not the ones this build reads (Swift 6.3.1): a checked continuation's task is 0x0, expected 0x7f3a10; what tasks hold and where they wait was not read
/// ```
///
/// The probe needs a thread of the cooperative pool for a moment: when none runs it within two
/// seconds (every one is blocked), nothing is checked beyond the runtime's exported layout
/// version (``TaskReferences/Runtime``), and tasks are read on that alone.
package enum ConcurrencyLayoutCheck: LibraryLayoutCheck {
  /// The first fact that does not match, or `nil`; checked once, in the process (never in a
  /// capture child: the check makes a task).
  package static let mismatch: RuntimeLayoutCheck.Fact? = RuntimeLayoutCheck.firstMismatch(
    in: RuntimeLayoutCheck.probesThisProcess ? facts() : [])
  package static let layouts = "the concurrency runtime's task layouts"
  package static let unread = "what tasks hold and where they wait"

  /// Where the probe task parks its continuation.
  private final class Parking: Sendable {
    let continuation = Mutex<CheckedContinuation<Void, Never>?>(nil)
  }

  /// Every fact, read from a task made now; none when the task did not wait in time.
  package static func facts() -> [RuntimeLayoutCheck.Fact] {
    guard TaskReferences.Runtime.current != nil else { return [] }  // the reader says so itself
    let parking = Parking()
    let task = Task.detached {
      await withCheckedContinuation { continuation in parking.continuation.withLock { $0 = continuation } }
    }
    let taskAddress = withUnsafeBytes(of: task) { $0.load(as: UInt.self) }
    defer {
      // Resumed, and waited for until it has completed (the runtime releases the task's closure
      // first), so that what it allocated (the canary) is gone before the capture that asked for
      // the check: a leak check would see it in its generation.
      parking.continuation.withLock {
        $0?.resume()
        $0 = nil
      }
      waitUntil { TaskReferences.hasCompleted(taskAddress) }
      withExtendedLifetime(task) {}
    }
    var canary: UInt = 0
    let waiting = waitUntil {
      canary = parking.continuation.withLock { continuation in continuation.map { withUnsafeBytes(of: $0) { $0.load(as: UInt.self) } } ?? 0
      }
      return canary != 0 && TaskReferences.hasSuspended(taskAddress)
    }
    guard waiting else { return [] }
    let reader = TaskReferences(reflector: RuntimeReflector.shared)
    let closure = reader.closureFunction(ofTask: taskAddress).flatMap { Symbolicator.shared.name(at: $0) } ?? "nothing"
    let frames = reader.suspensionFrames(ofTask: taskAddress)
    let waitsIn =
      frames.lazy.compactMap { Symbolicator.shared.name(at: $0 - 1) }.first { $0.contains("ConcurrencyLayoutCheck") } ?? "nothing"
    return [
      RuntimeLayoutCheck.Fact(
        name: "a checked continuation's task", expected: hex(taskAddress),
        found: hex(MemoryReader.readWord(at: canary &+ ConcurrencyLayout.CheckedContinuationCanary.continuation))),
      RuntimeLayoutCheck.Fact(name: "the closure a task runs", expected: "the check's closure", found: describe(closure)),
      RuntimeLayoutCheck.Fact(name: "where a waiting task waits", expected: "the check's closure", found: describe(waitsIn)),
    ]
  }

  /// Asks `state` every millisecond until it holds, for two seconds at most (a pool whose every
  /// thread is blocked runs no task), and returns whether it held.
  @discardableResult
  private static func waitUntil(_ state: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .seconds(2)
    while !state() {
      guard ContinuousClock.now < deadline else { return false }
      usleep(1_000)
    }
    return true
  }

  /// `the check's closure` for a function of this check, the name found otherwise.
  private static func describe(_ function: String) -> String {
    function.contains("ConcurrencyLayoutCheck") ? "the check's closure" : function
  }
}
