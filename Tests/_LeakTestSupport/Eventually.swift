import Foundation

/// Waits until `condition` holds, asking it again every two milliseconds, for at most `timeout`,
/// and returns whether it held: how tests wait for a state that a fixture, a task, a timer or
/// another process reaches, instead of for a fixed time.
///
/// ```swift
/// XCTAssertTrue(eventually { hasSuspended(task) }, "the task never reached its first await")
/// ```
///
/// The deadline only bounds a wait that failed: a state reached early ends the wait at once, so
/// a generous `timeout` costs nothing on a fast machine and saves a slow one (a sanitizer, a
/// loaded CI runner). In an async context, the async variant is the one called.
@discardableResult @_disfavoredOverload
public func eventually(within timeout: Duration = .seconds(30), _ condition: () throws -> Bool) rethrows -> Bool {
  let deadline = ContinuousClock.now + timeout
  while true {
    if try condition() { return true }
    if ContinuousClock.now >= deadline { return false }
    usleep(2_000)
  }
}

/// ``eventually(within:_:)`` for an async test: it suspends between checks, so the tasks it waits
/// for can run on the thread it would have blocked.
@discardableResult
public func eventually(within timeout: Duration = .seconds(30), _ condition: () async throws -> Bool) async rethrows -> Bool {
  let deadline = ContinuousClock.now + timeout
  while true {
    if try await condition() { return true }
    if ContinuousClock.now >= deadline { return false }
    try? await Task.sleep(for: .milliseconds(2))
  }
}
