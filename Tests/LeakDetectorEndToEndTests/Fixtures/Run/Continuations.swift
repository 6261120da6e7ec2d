// Tasks that wait on continuations when the program exits. Two dropped their continuation, so
// nothing can resume them (leaked, each with the payload its closure captures): one unsafe, one
// checked (the runtime logs that one). Their twins keep their continuations where the program can
// still resume them: in a global, an object a global holds, an array a global holds, and a block
// Dispatch runs in an hour; and one task sleeps. Exits with 0 once every task waits.
import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// What a task keeps alive while it waits: its closure captures one.
final class Payload: @unchecked Sendable {
  var uses = 0
}

/// Keeps a continuation in an object (a global holds the keeper).
final class ContinuationKeeper: @unchecked Sendable {
  var unsafe: UnsafeContinuation<Void, Never>?
  var checked: CheckedContinuation<Void, Never>?
}

/// How many tasks have handed their continuation over (and so suspend next).
let parked = Atomic<Int>(0)
nonisolated(unsafe) var globalUnsafe: UnsafeContinuation<Void, Never>?
nonisolated(unsafe) var globalChecked: CheckedContinuation<Void, Never>?
let keeper = ContinuationKeeper()
nonisolated(unsafe) var unsafeList: [UnsafeContinuation<Void, Never>] = []
nonisolated(unsafe) var checkedList: [CheckedContinuation<Void, Never>] = []
let listLock = Mutex<Void>(())

@inline(never) func dropUnsafeContinuation() {
  let payload = Payload()
  Task {  // LEAK: nothing can resume it
    await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in parked.add(1, ordering: .relaxed) }
    payload.uses += 1
  }
}

@inline(never) func dropCheckedContinuation() {
  let payload = Payload()
  Task {  // LEAK: nothing can resume it
    await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in parked.add(1, ordering: .relaxed) }
    payload.uses += 1
  }
}

@inline(never) func keepUnsafeContinuationInAGlobal() {
  let payload = Payload()
  Task {
    await withUnsafeContinuation { continuation in
      globalUnsafe = continuation
      parked.add(1, ordering: .relaxed)
    }
    payload.uses += 1
  }
}

@inline(never) func keepCheckedContinuationInAGlobal() {
  let payload = Payload()
  Task {
    await withCheckedContinuation { continuation in
      globalChecked = continuation
      parked.add(1, ordering: .relaxed)
    }
    payload.uses += 1
  }
}

@inline(never) func keepUnsafeContinuationInAnObject() {
  let payload = Payload()
  Task {
    await withUnsafeContinuation { continuation in
      keeper.unsafe = continuation
      parked.add(1, ordering: .relaxed)
    }
    payload.uses += 1
  }
}

@inline(never) func keepCheckedContinuationInAnObject() {
  let payload = Payload()
  Task {
    await withCheckedContinuation { continuation in
      keeper.checked = continuation
      parked.add(1, ordering: .relaxed)
    }
    payload.uses += 1
  }
}

@inline(never) func keepUnsafeContinuationInAnArray() {
  let payload = Payload()
  Task {
    await withUnsafeContinuation { continuation in
      listLock.withLock { _ in unsafeList.append(continuation) }
      parked.add(1, ordering: .relaxed)
    }
    payload.uses += 1
  }
}

@inline(never) func keepCheckedContinuationInAnArray() {
  let payload = Payload()
  Task {
    await withCheckedContinuation { continuation in
      listLock.withLock { _ in checkedList.append(continuation) }
      parked.add(1, ordering: .relaxed)
    }
    payload.uses += 1
  }
}

@inline(never) func sleepForAnHour() {
  let payload = Payload()
  Task {
    parked.add(1, ordering: .relaxed)
    try? await Task.sleep(for: .seconds(3600))
    payload.uses += 1
  }
}

@inline(never) func keepCheckedContinuationInAPendingBlock() {
  let payload = Payload()
  Task {
    await withCheckedContinuation { continuation in
      DispatchQueue.global().asyncAfter(deadline: .now() + 3600) { continuation.resume() }
      parked.add(1, ordering: .relaxed)
    }
    payload.uses += 1
  }
}

/// How many tasks of the barrier have arrived, and how many have left it.
let arrived = Atomic<Int>(0)
let left = Atomic<Int>(0)
/// How many of the tasks that pass over the pool's threads at the end have run.
let passed = Atomic<Int>(0)

/// Returns once every thread of the cooperative pool has come back for new work, all at the same
/// time (as many tasks as the pool has threads each wait until all have arrived): each thread
/// has then finished what it ran before, so the tasks above have suspended. Gives up after ten
/// seconds (a pool narrower than the processors).
func waitForEveryPoolThread(width: Int) {
  let deadline = ContinuousClock.now + .seconds(10)
  for _ in 0..<width {
    Task.detached {
      arrived.add(1, ordering: .relaxed)
      while arrived.load(ordering: .relaxed) < width && ContinuousClock.now < deadline { sched_yield() }
      left.add(1, ordering: .relaxed)
    }
  }
  while left.load(ordering: .relaxed) < width && ContinuousClock.now < deadline { sched_yield() }
}

/// Runs twice as many tasks as the pool has threads, each holding its thread for a while, so
/// that the stale addresses of the waiting tasks in the pool threads' stack frames are
/// overwritten, as any program's later work overwrites them (a capture takes stack words as
/// roots: it cannot tell a stale word from a held one).
func passOverEveryPoolThread(width: Int) {
  let passing = 2 * width
  for _ in 0..<passing {
    Task {
      usleep(20_000)
      passed.add(1, ordering: .relaxed)
    }
  }
  let deadline = ContinuousClock.now + .seconds(10)
  while passed.load(ordering: .relaxed) < passing && ContinuousClock.now < deadline { sched_yield() }
  usleep(50_000)  // the last of them return to the pool
}

dropUnsafeContinuation()
dropCheckedContinuation()
keepUnsafeContinuationInAGlobal()
keepCheckedContinuationInAGlobal()
keepUnsafeContinuationInAnObject()
keepCheckedContinuationInAnObject()
keepUnsafeContinuationInAnArray()
keepCheckedContinuationInAnArray()
sleepForAnHour()
keepCheckedContinuationInAPendingBlock()
let parkedBy = ContinuousClock.now + .seconds(60)
while parked.load(ordering: .relaxed) < 10 && ContinuousClock.now < parkedBy { sched_yield() }
let width = max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 1)
waitForEveryPoolThread(width: width)
passOverEveryPoolThread(width: width)
exit(0)
