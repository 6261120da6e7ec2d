// Three tasks wait on streams when the program exits: one on a stream whose continuation it
// dropped (nothing can resume it: a leaked task, with the counter its closure captures), one on a
// stream whose continuation a global keeps (held, not leaked); a third finished. Exits with 0.
#if canImport(Glibc)
  import Glibc
#endif

final class Counter: @unchecked Sendable {
  var total = 0
}

nonisolated(unsafe) var keptContinuation: AsyncStream<Int>.Continuation?

@inline(never) func startForgottenStream() {
  let (stream, continuation) = AsyncStream<Int>.makeStream()
  continuation.yield(1)
  let counter = Counter()
  Task { for await value in stream { counter.total += value } }  // LEAK: waits for ever
}

@inline(never) func startKeptStream() {
  let (stream, continuation) = AsyncStream<Int>.makeStream()
  keptContinuation = continuation
  let counter = Counter()
  Task { for await value in stream { counter.total += value } }
}

@inline(never) func startFinishedStream() {
  let (stream, continuation) = AsyncStream<Int>.makeStream()
  continuation.yield(1)
  continuation.finish()
  let counter = Counter()
  Task { for await value in stream { counter.total += value } }
}

startForgottenStream()
startKeptStream()
startFinishedStream()
usleep(200_000)  // the tasks run until they wait, or end
exit(0)
