import Dispatch

/// A value computed on another thread while the caller goes on: the analysis of a big heap
/// uses the second core for its dominator tree and leak grouping while the first searches
/// cycles. Reading ``value`` waits for the computation and returns its result (each time the same).
///
/// ```swift
/// let dominators = ConcurrentResult { DominatorTree(graph: graph, entries: entries) }
/// let summaries = entries.map(describe)  // meanwhile, on this thread
/// let retained = dominators.value.retainedSize
/// ```
final class ConcurrentResult<Value: Sendable>: @unchecked Sendable {
  // Written once by the worker before it signals `finished`; read only after waiting for it.
  private var result: Value?
  private let finished = DispatchSemaphore(value: 0)

  init(_ work: @escaping @Sendable () -> Value) {
    DispatchQueue.global(qos: .userInitiated).async {
      self.result = work()
      self.finished.signal()
    }
  }

  /// The computed value, once the computation has finished.
  var value: Value {
    finished.wait()
    defer { finished.signal() }  // so that a later read finds it finished too
    return result!
  }
}
