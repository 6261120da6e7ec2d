/// The retain a task suspended on a continuation keeps of itself for whoever resumes it, and
/// whether anything the capture found holds it.
///
/// A task that runs is retained for the job that runs it; when it suspends on a continuation
/// (`withUnsafeContinuation`, `withCheckedContinuation`), that retain passes to the
/// continuation: an `UnsafeContinuation` is the task's address, a `CheckedContinuation` a
/// canary object that holds it. Whoever keeps the continuation can resume the task, and the
/// walk finds those holders as references to the task: a continuation stored in an object, in
/// an `AsyncStream`'s storage or in a closure's context; a canary (which holds the task); a
/// word of another task's frames; a global's word (a root); the timer `Task.sleep` waits on (a
/// root). Its own frames do not count: they hold the continuation only until it is handed on.
///
/// So when the task's retains exceed the references found by exactly that one retain, nothing
/// holds what can resume it: the retain is not a holder outside the snapshot, and the task (with
/// what its closure and frames hold) is leaked. With more unexplained retains, something the
/// capture does not see holds the task (its handle, say), and it stays held.
///
/// ```text
/// 1) 1 × Task.suspended → await in closure #1 in dropUnsafeContinuation()  (3 objects, 24 bytes)
///    - Task.suspended  made at dropUnsafeContinuation() (Continuations.swift:35)
///    - await in closure #1 in dropUnsafeContinuation()  waits at Continuations.swift:36
///    also holds 1 × Payload, 1 × closure #1 in dropUnsafeContinuation()
/// ```
///
/// > Important: a word on a thread's stack that still holds the task's address from the last
/// > time the thread ran it (conservative scanning cannot tell it from a local variable) makes
/// > the task a root: such a task is then not reported.
///
/// The runtime only logs "leaked its continuation" for a checked continuation, when its canary
/// is freed, and nothing for an unsafe one.
enum ResumerRetain {
  /// How many of the `unexplained` retains of the captured object at `address` (of `kind`) are
  /// the resumer's retain of a task suspended on a continuation that no reference accounts for:
  /// 1 when that retain is the only unexplained one, else 0 (the object stays held).
  ///
  /// `Task.sleep` keeps its continuation in memory that is no object: its timer is found only
  /// where libdispatch's timers can be read (``PendingDispatchWork``); where they cannot, no
  /// task counts as leaked this way.
  static func unheld(ofObjectAt address: UInt, kind: HeapObjectKind, unexplained: Int) -> Int {
    guard unexplained == 1, kind == .task, PendingDispatchWork.locations.timerHeaps != 0,
      ConcurrencyLayoutCheck.mismatch == nil, TaskReferences.waitsOnContinuation(address)
    else { return 0 }
    return 1
  }
}
