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

/// How many of the tasks that pass over the pool's threads at the end have run.
let passed = Atomic<Int>(0)

startForgottenStream()
startKeptStream()
startFinishedStream()
for _ in 0..<5_000 where started.load(ordering: .relaxed) < 3 { usleep(1_000) }
usleep(300_000)  // each asks its stream for the next element, and waits (or ends), also on a loaded machine
// A thread of the pool that last ran the forgotten task keeps its address in a frame of the
// loop it waits in, and a capture takes a thread's stack words as roots (it cannot tell a stale
// word from a held one): the task would then look held. Tasks that each hold a thread of the
// pool for a while, twice as many as there are processors, run on every thread of it and leave
// their own (freed) addresses there instead, as any program's later work does.
let passing = 2 * max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 1)
for _ in 0..<passing {
  Task {
    usleep(20_000)
    passed.add(1, ordering: .relaxed)
  }
}
for _ in 0..<5_000 where passed.load(ordering: .relaxed) < passing { usleep(1_000) }
usleep(50_000)
exit(0)
