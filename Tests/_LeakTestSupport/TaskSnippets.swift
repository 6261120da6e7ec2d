import Foundation
import Synchronization

/// Tasks as tests leave them: each made by a function of its own, so that a report names the
/// line; each returns what ends the task, for the test to call after the check.

/// `Task { try? await Task.sleep(for: .seconds(3600)) }`: ended by cancelling it.
@inline(never) public func startSleepingTask() -> Task<Void, Never> {
  SleepingTaskLine.value = #line + 1
  return Task { try? await Task.sleep(for: .seconds(3600)) }
}

/// ``startSleepingTask()``, returning once the task sleeps: on a loaded machine a task can still
/// be queued for a thread when a check looks, and a queued task is pending work that the executor
/// holds, not one left waiting.
public func startSleepingTaskAndLetItSleep() async -> Task<Void, Never> {
  let task = startSleepingTask()
  await eventually { hasSuspended(task) }
  return task
}

/// The line of ``startSleepingTask()``'s `Task {`.
public enum SleepingTaskLine {
  nonisolated(unsafe) public static var value = 0
}

/// A task that waits on a checked continuation the returned closure resumes.
@inline(never) public func startTaskWaitingOnAContinuation() -> @Sendable () -> Void {
  let parked = ParkedContinuation()
  let task = Task { await withCheckedContinuation { parked.park($0) } }
  // The task parks its continuation in the body of `withCheckedContinuation`, before it
  // suspends: until then it runs, and a capture in that moment (a slow machine, a sanitizer)
  // reaches what it holds through the running task, not through where it waits.
  eventually { hasSuspended(task) }
  return { parked.resume() }
}

/// Where ``startTaskWaitingOnAContinuation()`` keeps its continuation.
public final class ParkedContinuation: @unchecked Sendable {
  private var continuation: CheckedContinuation<Void, Never>?
  private var resumed = false
  private let lock = NSLock()

  public init() {}

  func park(_ continuation: CheckedContinuation<Void, Never>) {
    let resumeNow = lock.withLock { () -> Bool in
      if resumed { return true }
      self.continuation = continuation
      return false
    }
    if resumeNow { continuation.resume() }
  }

  func resume() {
    let continuation = lock.withLock { () -> CheckedContinuation<Void, Never>? in
      resumed = true
      defer { self.continuation = nil }
      return self.continuation
    }
    continuation?.resume()
  }
}

/// A task awaiting the value of a task that waits on `stream`: both wait until it finishes.
@inline(never) public func startTaskAwaitingAnother(on stream: AsyncStream<Int>) {
  let inner = Task { for await _ in stream {} }
  Task { await inner.value }
}

/// A task whose task group's child waits on `stream`: both wait until it finishes.
@inline(never) public func startTaskGroupWaiting(on stream: AsyncStream<Int>) {
  Task {
    await withTaskGroup(of: Void.self) { group in
      group.addTask { for await _ in stream {} }
    }
  }
}

/// A task whose `async let` child waits on `stream`: both wait until it finishes.
@inline(never) public func startAsyncLetWaiting(on stream: AsyncStream<Int>) {
  Task {
    async let child: Void = { for await _ in stream {} }()
    await child
  }
}

/// Where ``startTaskWaitingOnAnUnsafeContinuation()`` keeps its continuation: a stored
/// `UnsafeContinuation`, the task's resumer.
public final class ParkedUnsafeContinuation: @unchecked Sendable {
  public var continuation: UnsafeContinuation<Void, Never>?
  private let lock = NSLock()

  public init() {}

  func park(_ continuation: UnsafeContinuation<Void, Never>) { lock.withLock { self.continuation = continuation } }

  /// Resumes the task once its continuation is here.
  public func resume() {
    var taken: UnsafeContinuation<Void, Never>?
    eventually {
      taken = lock.withLock {
        defer { continuation = nil }
        return continuation
      }
      return taken != nil
    }
    taken?.resume()
  }
}

/// A task that waits on an unsafe continuation that `parked` keeps.
@inline(never) public func startTaskWaitingOnAnUnsafeContinuation(parkedIn parked: ParkedUnsafeContinuation) {
  let task = Task { await withUnsafeContinuation { parked.park($0) } }
  eventually { hasSuspended(task) }
}

/// An actor whose `hold()` keeps its executor busy (blocking its thread) until `release()`.
public actor Gate {
  private let semaphore = DispatchSemaphore(value: 0)
  private let isHeld = Atomic<Bool>(false)
  public private(set) var visits = 0

  public init() {}

  /// Blocks the actor's thread until `release()`: work queued on the actor meanwhile waits.
  public func hold() {
    isHeld.store(true, ordering: .releasing)
    semaphore.wait()
  }

  /// Whether a task holds the actor in ``hold()``.
  public nonisolated var isHolding: Bool { isHeld.load(ordering: .acquiring) }

  public nonisolated func release() { semaphore.signal() }

  public func visit() { visits += 1 }
}

/// A task that holds `gate`, then one queued on it behind that: returns when the second waits.
@inline(never) public func startTaskQueuedBehindABusyActor(_ gate: Gate) {
  Task { await gate.hold() }
  eventually { gate.isHolding }
  let queued = Task { await gate.visit() }
  eventually { hasSuspended(queued) }  // it waits for the actor
}

/// What a task that waits on a continuation keeps alive: its closure captures one.
public final class ContinuationPayload: @unchecked Sendable {
  public var uses = 0
  public init() {}
}

/// A task that drops its unsafe continuation, so nothing can resume it (a leak, with the payload
/// its closure captures); returns once it waits.
@inline(never) public func startTaskDroppingItsUnsafeContinuation() {
  let payload = ContinuationPayload()
  DroppedContinuationLines.unsafe = #line + 1
  let task = Task {
    await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
    payload.uses += 1
  }
  eventually { hasSuspended(task) }
}

/// A task that drops its checked continuation, so nothing can resume it (a leak, with the payload
/// its closure captures; the runtime logs that it leaked its continuation); returns once it waits.
@inline(never) public func startTaskDroppingItsCheckedContinuation() {
  let payload = ContinuationPayload()
  DroppedContinuationLines.checked = #line + 1
  let task = Task {
    await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }
    payload.uses += 1
  }
  eventually { hasSuspended(task) }
}

/// The lines of the `Task {` of ``startTaskDroppingItsUnsafeContinuation()`` and
/// ``startTaskDroppingItsCheckedContinuation()``.
public enum DroppedContinuationLines {
  nonisolated(unsafe) public static var unsafe = 0
  nonisolated(unsafe) public static var checked = 0
}
