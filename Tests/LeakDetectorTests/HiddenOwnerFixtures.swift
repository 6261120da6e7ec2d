import Dispatch
import Foundation

/// Owners whose closures the runtime keeps where type metadata does not show them, each with a
/// strong and a `[weak self]` variant. Every fixture is stored in a global by its caller (so the
/// optimizer cannot promote it to the stack) and stopped by `stop()`.

/// `self.task = Task { for await x in stream { self.count += x } }`
final class StreamTaskOwner: @unchecked Sendable {
  var count = 0
  var task: Task<Void, Never>?
  var continuation: AsyncStream<Int>.Continuation?

  @inline(never) func start(weakly: Bool) {
    let (stream, continuation) = AsyncStream<Int>.makeStream()
    self.continuation = continuation
    if weakly {
      task = Task { [weak self] in for await x in stream { self?.count += x } }
    } else {
      task = Task { for await x in stream { self.count += x } }
    }
  }

  func stop() {
    continuation?.finish()
    task?.cancel()
    task = nil
    continuation = nil
  }
}

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

/// `token = center.addObserver(forName:object:queue:) { _ in self.hits += 1 }`
final class ObserverOwner: @unchecked Sendable {
  static let name = Notification.Name("HiddenOwnerFixtures.ObserverOwner")
  var hits = 0
  var token: NSObjectProtocol?

  @inline(never) func start(weakly: Bool) {
    if weakly {
      token = NotificationCenter.default.addObserver(forName: Self.name, object: nil, queue: nil) { [weak self] _ in self?.hits += 1 }
    } else {
      token = NotificationCenter.default.addObserver(forName: Self.name, object: nil, queue: nil) { _ in self.hits += 1 }
    }
  }

  func stop() {
    if let token { NotificationCenter.default.removeObserver(token) }
    token = nil
  }
}

nonisolated(unsafe) var hiddenOwnerSink: [AnyObject] = []

/// `source.setEventHandler { self.ticks += 1 }; self.source = source`
final class SourceOwner: @unchecked Sendable {
  var ticks = 0
  var source: DispatchSourceTimer?

  @inline(never) func start(weakly: Bool) {
    let source = DispatchSource.makeTimerSource(queue: .global())
    if weakly {
      source.setEventHandler { [weak self] in self?.ticks += 1 }
    } else {
      source.setEventHandler { self.ticks += 1 }
    }
    source.schedule(deadline: .now() + 3600)
    source.resume()
    self.source = source
  }

  func stop() {
    source?.cancel()
    source = nil
  }
}

/// `item = DispatchWorkItem { self.n += 1 }`
final class WorkItemOwner: @unchecked Sendable {
  var n = 0
  var item: DispatchWorkItem?

  @inline(never) func start(weakly: Bool) {
    if weakly {
      item = DispatchWorkItem { [weak self] in self?.n += 1 }
    } else {
      item = DispatchWorkItem { self.n += 1 }
    }
  }

  func stop() { item = nil }
}

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
