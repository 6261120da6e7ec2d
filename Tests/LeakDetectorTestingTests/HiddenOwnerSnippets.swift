import Dispatch
import Foundation

/// The four owners the runtime hides, written as a user writes them, each with a strong variant
/// (a retain cycle through the owner) and a `[weak self]` one. Each records the line of its
/// closure, which the failure text must name, and `stop()` breaks the cycle after the check.

/// `task = Task { for await x in stream { self.count += x } }`
final class StreamCounter: @unchecked Sendable {
  nonisolated(unsafe) static var closureLine = 0
  var count = 0
  var task: Task<Void, Never>?
  var continuation: AsyncStream<Int>.Continuation?

  @inline(never) func start(weakly: Bool) {
    let (stream, continuation) = AsyncStream<Int>.makeStream()
    self.continuation = continuation
    if weakly {
      task = Task { [weak self] in for await x in stream { self?.count += x } }
    } else {
      Self.closureLine = #line + 1
      task = Task { for await x in stream { self.count += x } }
    }
  }

  func stop() {
    continuation?.finish()
    task?.cancel()
    task = nil
  }
}

/// `source.setEventHandler { self.ticks += 1 }; self.source = source`
final class Ticker: @unchecked Sendable {
  nonisolated(unsafe) static var closureLine = 0
  var ticks = 0
  var source: DispatchSourceTimer?

  @inline(never) func start(weakly: Bool) {
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

  func stop() {
    source?.cancel()
    source = nil
  }
}

/// `token = center.addObserver(forName: n, object: nil, queue: nil) { _ in self.hits += 1 }`
final class HitCounter: @unchecked Sendable {
  nonisolated(unsafe) static var closureLine = 0
  static let name = Notification.Name("LeakDetectorTestingTests.HitCounter")
  var hits = 0
  var token: NSObjectProtocol?

  @inline(never) func start(weakly: Bool) {
    let center = NotificationCenter.default
    if weakly {
      token = center.addObserver(forName: Self.name, object: nil, queue: nil) { [weak self] _ in self?.hits += 1 }
    } else {
      Self.closureLine = #line + 1
      token = center.addObserver(forName: Self.name, object: nil, queue: nil) { _ in self.hits += 1 }
    }
  }

  func stop() {
    if let token { NotificationCenter.default.removeObserver(token) }
    token = nil
  }
}

/// `item = DispatchWorkItem { self.n += 1 }`
final class Incrementer: @unchecked Sendable {
  nonisolated(unsafe) static var closureLine = 0
  var n = 0
  var item: DispatchWorkItem?

  @inline(never) func start(weakly: Bool) {
    if weakly {
      item = DispatchWorkItem { [weak self] in self?.n += 1 }
    } else {
      Self.closureLine = #line + 1
      item = DispatchWorkItem { self.n += 1 }
    }
  }

  func stop() { item = nil }
}

/// `DispatchQueue.global().asyncAfter(deadline: .now() + 3600) { self.n += 1 }`: no cycle, but
/// the block holds the object until it runs, an hour later.
final class Reminder: @unchecked Sendable {
  nonisolated(unsafe) static var closureLine = 0
  var n = 0

  @inline(never) func remindInAnHour() {
    Self.closureLine = #line + 1
    DispatchQueue.global().asyncAfter(deadline: .now() + 3600) { self.n += 1 }
  }
}
