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
/// How many of the tasks that pass over the pool's threads at the end have run.
let passed = Atomic<Int>(0)

/// Returns once every thread of the cooperative pool has come back for new work, all at the same
/// time: as many tasks as the pool has threads (one per processor) each wait until all have
/// arrived. Each thread has then finished what it ran before: the tasks above asked their streams
/// for the next element and wait, or ended. Gives up waiting after ten seconds (a pool that is
/// narrower than the processors).
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

/// Runs twice as many tasks as the pool has threads, each holding its thread for a while, and
/// returns once all have run. A thread of the pool that last ran the forgotten task keeps its
/// address in a frame of the loop it waits in, and a capture takes a thread's stack words as
/// roots (it cannot tell a stale word from a held one): the task would then look held. These
/// tasks run on every thread of the pool and leave their own (freed) addresses there instead, as
/// any program's later work does. The time each holds its thread is the point: it spreads them
/// over the threads (a barrier alone left the word 2 to 5 times in 300 runs, these none).
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

startForgottenStream()
startKeptStream()
startFinishedStream()
let startedBy = ContinuousClock.now + .seconds(60)
while started.load(ordering: .relaxed) < 3 && ContinuousClock.now < startedBy { sched_yield() }  // each took its first element
let width = max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 1)
waitForEveryPoolThread(width: width)
passOverEveryPoolThread(width: width)
exit(0)
