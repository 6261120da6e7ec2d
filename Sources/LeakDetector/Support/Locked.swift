import CLeakRuntime

#if canImport(Glibc)
  import Glibc
#endif

/// A value behind a pthread mutex, for state that holds non-`Sendable` objects (which
/// `Synchronization.Mutex` cannot hand out). Callers must not let references escape the lock
/// except to release them.
///
/// State that a capture child reads (reflection caches, symbol caches, associations) is
/// `protectedAcrossFork`: the lock is taken before any `fork()` of the process and released on
/// both sides, so the child finds it free and the value consistent. Such locks must not be held
/// while taking another protected lock created earlier (they are taken in creation order).
package final class Locked<Value>: @unchecked Sendable {
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private let isProtectedAcrossFork: Bool
  private var value: Value

  package init(_ value: Value, protectedAcrossFork: Bool = false) {
    self.value = value
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
    isProtectedAcrossFork = protectedAcrossFork && cleak_fork_protect(mutex)
    precondition(isProtectedAcrossFork == protectedAcrossFork, "Locked: too many locks protected across fork")
  }

  deinit {
    if isProtectedAcrossFork { cleak_fork_unprotect(mutex) }
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&value)
  }
}
