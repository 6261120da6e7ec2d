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

startForgottenStream()
startKeptStream()
startFinishedStream()
for _ in 0..<5_000 where started.load(ordering: .relaxed) < 3 { usleep(1_000) }
usleep(300_000)  // each asks its stream for the next element, and waits (or ends), also on a loaded machine
exit(0)
