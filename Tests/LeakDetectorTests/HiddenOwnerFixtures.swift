import Dispatch
import Foundation

/// Owners whose closures the runtime keeps where type metadata does not show them, beyond the
/// snippets of `LeakTestSupport` (a sleeping task, blocks waiting to run). Every fixture is stored
/// in a global by its caller (so the optimizer cannot promote it to the stack).

/// A task that sleeps, then uses `self`; and one that has completed.
final class SleepingTaskOwner: @unchecked Sendable {
  var count = 0
  var task: Task<Void, Never>?

  @inline(never) func startSleeping() {
    task = Task {
      try? await Task.sleep(for: .seconds(3600))
      self.count += 1
    }
  }

  @inline(never) func runToCompletion() async {
    let task = Task { self.count += 1 }
    self.task = task
    await task.value
  }

  func stop() {
    task?.cancel()
    task = nil
  }
}

nonisolated(unsafe) var hiddenOwnerSink: [AnyObject] = []

/// Blocks libdispatch holds until they run: `asyncAfter`, `DispatchQueue.main.async`, and
/// `async` on a suspended serial queue the object keeps.
final class DelayedWorker: @unchecked Sendable {
  var n = 0
  var queue: DispatchQueue?

  /// Held for an hour by the block (nothing cancels an `asyncAfter` block).
  @inline(never) func scheduleInAnHour() {
    DispatchQueue.global().asyncAfter(deadline: .now() + 3600) { self.n += 1 }
  }

  /// Held by the main queue until the main thread drains it.
  @inline(never) func scheduleOnMain() {
    DispatchQueue.main.async { self.n += 1 }
  }

  /// A cycle: the worker keeps its suspended queue, whose pending block keeps the worker.
  @inline(never) func enqueueOnSuspendedQueue() {
    let queue = DispatchQueue(label: "HiddenOwnerFixtures.DelayedWorker")
    queue.suspend()
    queue.async { self.n += 1 }
    self.queue = queue
  }

  func resume() {
    queue?.resume()
    queue?.sync {}
    queue = nil
  }
}

extension DelayedWorker {
  /// Held by the main run loop until the main thread runs it.
  @inline(never) func performOnMainRunLoop() {
    RunLoop.main.perform { self.n += 1 }
  }
}

extension DelayedWorker {
  /// A main-actor task, held by the main queue until the main thread runs it.
  @inline(never) func startMainActorTask() {
    Task { @MainActor in self.n += 1 }
  }
}
