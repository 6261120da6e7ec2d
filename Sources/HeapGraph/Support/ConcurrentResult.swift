#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A value computed on a thread of its own while the caller goes on: the analysis of a big heap
/// uses the second core for its leak analysis while the first searches cycles, and the leak
/// analysis its own for the dominator tree. Reading ``value`` waits for the computation.
///
/// A thread of its own, not a pool's: a computation that waits for another (the leak analysis for
/// its dominator tree) would otherwise hold a pool thread while the other waits for one, and
/// analyses that run side by side (tests checked in parallel) could take every pool thread.
///
/// ```swift
/// let dominators = ConcurrentResult { DominatorTree(graph: graph, entries: entries) }
/// let summaries = entries.map(describe)  // meanwhile, on this thread
/// let retained = dominators.value.retainedSize
/// ```
final class ConcurrentResult<Value: Sendable>: @unchecked Sendable {
  // Written by the computing thread before it ends; read only after joining it, by one thread
  // (``value`` is not for several readers at once).
  private var result: Value?
  private var thread: pthread_t?

  init(_ work: @escaping @Sendable () -> Value) {
    let body = ThreadBody { [unowned(unsafe) self] in self.result = work() }
    var thread = pthread_t()
    let context = Unmanaged.passRetained(body).toOpaque()
    let started = pthread_create(
      &thread, nil,
      { context in
        Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().run()
        return nil
      }, context)
    if started == 0 {
      self.thread = thread
    } else {  // no thread to be had: compute here
      Unmanaged<ThreadBody>.fromOpaque(context).release()
      result = work()
    }
  }

  deinit {
    joinThread()
  }

  /// The computed value, once the computation has finished.
  var value: Value {
    joinThread()
    return result!
  }

  private func joinThread() {
    guard let thread else { return }
    pthread_join(thread, nil)
    self.thread = nil
  }
}

/// What a ``ConcurrentResult``'s thread runs (a class, so that a C thread entry point can take it).
private final class ThreadBody {
  let run: () -> Void

  init(_ run: @escaping () -> Void) {
    self.run = run
  }
}
