import LeakDetector

/// Whether `task` has run to a suspension point and waits there: it neither runs nor has
/// completed, and it no longer resumes where it was made. A task that is made but still queued
/// for a thread has not. Fixtures wait for this state before a check looks at what the task holds
/// (a running task holds what it holds through the running thread, not through where it waits).
public func hasSuspended<Success, Failure>(_ task: Task<Success, Failure>) -> Bool {
  TaskReferences.hasSuspended(address(of: task))
}

/// Whether `task` sleeps in `Task.sleep` with its timer armed where a capture finds it (a task
/// suspends a moment before libdispatch has its timer there). Fixtures wait for this state
/// before a check names the sleep timer as what holds the task.
public func isAsleep<Success, Failure>(_ task: Task<Success, Failure>) -> Bool {
  PendingDispatchWork.holdsSleeping(task: address(of: task))
}

/// Whether `task` has completed: its closure, and what it captured, are released.
public func hasCompleted<Success, Failure>(_ task: Task<Success, Failure>) -> Bool {
  TaskReferences.hasCompleted(address(of: task))
}

/// The task object a `Task` handle refers to.
private func address<Success, Failure>(of task: Task<Success, Failure>) -> UInt {
  withUnsafeBytes(of: task) { $0.load(as: UInt.self) }
}
