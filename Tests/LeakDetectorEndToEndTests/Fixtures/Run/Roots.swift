// Four cycles held only by raw (uncounted) pointers in root memory, as C code would hold them:
// a global, the stack of a thread blocked for ever, the main thread's stack when it exits, and
// a thread-specific value. None is leaked. A fifth cycle nobody points to is leaked.
#if canImport(Glibc)
  import Glibc
#endif

final class HeldByGlobal { var me: HeldByGlobal? }
final class HeldByThreadStack { var me: HeldByThreadStack? }
final class HeldByMainStack { var me: HeldByMainStack? }
final class HeldByThreadLocal { var me: HeldByThreadLocal? }
final class Unreferenced { var me: Unreferenced? }

nonisolated(unsafe) var rawGlobal: UnsafeMutableRawPointer?

@inline(never) func cycle<T: AnyObject>(_ make: () -> T, _ link: (T) -> Void) -> UnsafeMutableRawPointer {
  let object = make()
  link(object)
  return Unmanaged.passUnretained(object).toOpaque()
}

rawGlobal = cycle(HeldByGlobal.init) { $0.me = $0 }

var key = pthread_key_t()
pthread_key_create(&key, nil)
pthread_setspecific(key, cycle(HeldByThreadLocal.init) { $0.me = $0 })

_ = cycle(Unreferenced.init) { $0.me = $0 }

/// Where the blocked thread's local lives, published so that the optimizer keeps it in memory.
nonisolated(unsafe) var threadSlot: UnsafeMutableRawPointer?

let started = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
sem_init(started, 0, 0)
var thread = pthread_t()
pthread_create(&thread, nil, { _ in
  var onStack = cycle(HeldByThreadStack.init) { $0.me = $0 }
  withUnsafeMutablePointer(to: &onStack) { slot in
    threadSlot = UnsafeMutableRawPointer(slot)
    sem_post(started)
    while true { pause() }  // blocked for ever, holding the pointer in its frame
  }
  return nil
}, nil)
sem_wait(started)

/// Where the main thread's local lives, published so that the optimizer keeps it in memory.
nonisolated(unsafe) var localSlot: UnsafeMutableRawPointer?

@inline(never) func exitHoldingALocal() -> Never {
  var onStack = cycle(HeldByMainStack.init) { $0.me = $0 }
  withUnsafeMutablePointer(to: &onStack) { slot -> Never in
    localSlot = UnsafeMutableRawPointer(slot)
    exit(0)
  }
}
exitHoldingALocal()
