// Three tasks wait on streams when the program exits: one on a stream whose continuation it
// dropped (nothing can resume it: a leaked task, with the counter its closure captures), one on a
// stream whose continuation a global keeps (held, not leaked); a third finished. Exits with 0
// once each has taken its stream's first element (and so waits for the next, or has ended).
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

final class Counter: @unchecked Sendable {
  var total = 0
}

/// How many tasks took their first element.
let started = Atomic<Int>(0)
nonisolated(unsafe) var keptContinuation: AsyncStream<Int>.Continuation?

@inline(never) func startForgottenStream() {
  let (stream, continuation) = AsyncStream<Int>.makeStream()
  continuation.yield(1)
  let counter = Counter()
  Task {  // LEAK: waits for ever
    for await value in stream {
      counter.total += value
      started.add(1, ordering: .relaxed)
    }
  }
}

@inline(never) func startKeptStream() {
  let (stream, continuation) = AsyncStream<Int>.makeStream()
  continuation.yield(1)
  keptContinuation = continuation
  let counter = Counter()
  Task {
    for await value in stream {
      counter.total += value
      started.add(1, ordering: .relaxed)
    }
  }
}

@inline(never) func startFinishedStream() {
  let (stream, continuation) = AsyncStream<Int>.makeStream()
  continuation.yield(1)
  continuation.finish()
  let counter = Counter()
  Task {
    for await value in stream {
      counter.total += value
      started.add(1, ordering: .relaxed)
    }
  }
}

/// How many tasks of the barrier have arrived, and how many have left it.
let arrived = Atomic<Int>(0)
let left = Atomic<Int>(0)

/// Returns once every thread of the cooperative pool has come back for new work, all at the same
/// time: as many tasks as the pool has threads (one per processor) each wait until all have
/// arrived. Each thread has then finished what it ran before: the tasks above asked their streams
/// for the next element and wait, or ended. A thread of the pool that last ran the forgotten task
/// also kept its address in a frame of the loop it waits in, and a capture takes a thread's stack
/// words as roots (it cannot tell a stale word from a held one): the barrier's task runs over
/// those words, as any program's later work does. Gives up waiting after ten seconds (a pool that is
/// narrower than the processors), which leaves the words and the check to chance.
func passOverEveryPoolThread() {
  let width = max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 1)
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

startForgottenStream()
startKeptStream()
startFinishedStream()
let startedBy = ContinuousClock.now + .seconds(60)
while started.load(ordering: .relaxed) < 3 && ContinuousClock.now < startedBy { sched_yield() }  // each took its first element
passOverEveryPoolThread()
exit(0)
