import Dispatch
import Foundation
import Synchronization

/// The owners the runtime hides, written as a user writes them, for the detector's tests and the
/// leak-check tests: each with a strong variant (a retain cycle through the owner) and a
/// `[weak self]` one. Each records the line of its closure, which reports must name, and
/// `stop()` breaks the cycle after the check.

/// `task = Task { for await x in stream { self.count += x } }`
public final class StreamCounter: @unchecked Sendable {
  public init() {}
  nonisolated(unsafe) public static var closureLine = 0
  public var count = 0
  public var task: Task<Void, Never>?
  public var continuation: AsyncStream<Int>.Continuation?

  @inline(never) public func start(weakly: Bool) {
    let (stream, continuation) = AsyncStream<Int>.makeStream()
    self.continuation = continuation
    if weakly {
      task = Task { [weak self] in for await x in stream { self?.count += x } }
    } else {
      Self.closureLine = #line + 1
      task = Task { for await x in stream { self.count += x } }
    }
  }

  public func stop() {
    continuation?.finish()
    task?.cancel()
    task = nil
  }
}

/// `source.setEventHandler { self.ticks += 1 }; self.source = source`
public final class Ticker: @unchecked Sendable {
  public init() {}
  nonisolated(unsafe) public static var closureLine = 0
  public var ticks = 0
  public var source: DispatchSourceTimer?

  @inline(never) public func start(weakly: Bool) {
    let source = DispatchSource.makeTimerSource(queue: .global())
    if weakly {
      source.setEventHandler { [weak self] in self?.ticks += 1 }
    } else {
      Self.closureLine = #line + 1
      source.setEventHandler { self.ticks += 1 }
    }
    source.schedule(deadline: .now() + 3600)
    source.resume()
    self.source = source
  }

  public func stop() {
    source?.cancel()
    source = nil
  }
}

/// `token = center.addObserver(forName: n, object: nil, queue: nil) { _ in self.hits += 1 }`
public final class HitCounter: @unchecked Sendable {
  public init() {}
  nonisolated(unsafe) public static var closureLine = 0
  public static let name = Notification.Name("LeakTestSupport.HitCounter")
  public var hits = 0
  public var token: NSObjectProtocol?

  @inline(never) public func start(weakly: Bool) {
    let center = NotificationCenter.default
    if weakly {
      token = center.addObserver(forName: Self.name, object: nil, queue: nil) { [weak self] _ in self?.hits += 1 }
    } else {
      Self.closureLine = #line + 1
      token = center.addObserver(forName: Self.name, object: nil, queue: nil) { _ in self.hits += 1 }
    }
  }

  public func stop() {
    if let token { NotificationCenter.default.removeObserver(token) }
    token = nil
  }
}

/// `item = DispatchWorkItem { self.n += 1 }`
public final class Incrementer: @unchecked Sendable {
  public init() {}
  nonisolated(unsafe) public static var closureLine = 0
  public var n = 0
  public var item: DispatchWorkItem?

  @inline(never) public func start(weakly: Bool) {
    if weakly {
      item = DispatchWorkItem { [weak self] in self?.n += 1 }
    } else {
      Self.closureLine = #line + 1
      item = DispatchWorkItem { self.n += 1 }
    }
  }

  public func stop() { item = nil }
}

/// `DispatchQueue.global().asyncAfter(deadline: .now() + 3600) { self.n += 1 }`: no cycle, but
/// the block holds the object until it runs, an hour later.
public final class Reminder: @unchecked Sendable {
  public init() {}
  nonisolated(unsafe) public static var closureLine = 0
  public var n = 0

  @inline(never) public func remindInAnHour() {
    Self.closureLine = #line + 1
    DispatchQueue.global().asyncAfter(deadline: .now() + 3600) { self.n += 1 }
  }

  /// The same with a closure that captures a value too: its context is an object of its own,
  /// which holds the reminder.
  @inline(never) public func remindInAnHour(adding delta: Int) {
    Self.closureLine = #line + 1
    DispatchQueue.global().asyncAfter(deadline: .now() + 3600) { self.n += delta }
  }
}

/// `Task { try await Task.sleep(for: .seconds(3600)); self.n += 1 }`: no cycle, but the task
/// holds the object until it wakes, an hour later. The object does not keep the task (that would
/// be a cycle); the caller does, to cancel it.
public final class Napper: @unchecked Sendable {
  public init() {}
  nonisolated(unsafe) public static var closureLine = 0
  public var n = 0

  @discardableResult @inline(never) public func napForAnHour(weakly: Bool) -> Task<Void, Never> {
    let task: Task<Void, Never>
    if weakly {
      task = Task { [weak self] in
        try? await Task.sleep(for: .seconds(3600))
        self?.n += 1
      }
    } else {
      Self.closureLine = #line + 1
      task = Task {
        try? await Task.sleep(for: .seconds(3600))
        self.n += 1
      }
    }
    return task
  }
}

/// A task group whose child sleeps holding the object: the parent task keeps the group's child.
public final class GroupNapper: @unchecked Sendable {
  public init() {}
  nonisolated(unsafe) public static var closureLine = 0
  public var n = 0

  @discardableResult @inline(never) public func start() -> Task<Void, Never> {
    let task = Task {
      await withTaskGroup(of: Void.self) { group in
        Self.closureLine = #line + 1
        group.addTask { [self] in
          try? await Task.sleep(for: .seconds(3600))
          self.n += 1
        }
      }
    }
    return task
  }
}

/// `Timer.scheduledTimer(withTimeInterval: 3600, repeats: true) { _ in self.beats += 1 }` on
/// the main run loop: no cycle, but the run loop holds the timer until it is invalidated.
public final class Metronome: @unchecked Sendable {
  public init() {}
  nonisolated(unsafe) public static var closureLine = 0
  public var beats = 0
  private weak var timer: Timer?

  @inline(never) public func start(weakly: Bool) {
    if weakly {
      timer = Timer.scheduledTimer(withTimeInterval: 3600, repeats: true) { [weak self] _ in self?.beats += 1 }
    } else {
      Self.closureLine = #line + 1
      timer = Timer.scheduledTimer(withTimeInterval: 3600, repeats: true) { _ in self.beats += 1 }
    }
  }

  public func stop() { timer?.invalidate() }
}

/// `Task { for await x in stream { total.count += x } }` after one element was yielded; with
/// `finishing: true` the stream is finished, and the task ends. Otherwise it waits for more, until
/// the caller finishes the continuation returned (a caller that drops it leaks the task, and what
/// its closure captures, for good).
public final class StreamTotal: Sendable {
  public init() {}
  nonisolated(unsafe) public static var taskLine = 0
  /// What the task added: atomic, since the test reads it while the task runs.
  public let count = Atomic<Int>(0)
}

@discardableResult @inline(never)
public func countAStream(into total: StreamTotal, finishing: Bool) -> AsyncStream<Int>.Continuation {
  let (stream, continuation) = AsyncStream<Int>.makeStream()
  continuation.yield(1)
  if finishing { continuation.finish() }
  StreamTotal.taskLine = #line + 1
  let task = Task { for await x in stream { total.count.add(x, ordering: .relaxed) } }
  // Returns once the task waits for the next element, or has ended with the finished stream.
  eventually { finishing ? hasCompleted(task) : hasSuspended(task) && total.count.load(ordering: .relaxed) == 1 }
  return continuation
}
