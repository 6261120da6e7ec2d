// A cycle that only a raw pointer in another thread's dynamic TLS reaches (a `__thread` variable
// of the library given as the first argument, loaded with `dlopen`): it is not leaked while the
// thread lives. The thread blocks for ever; the main thread then exits.
#if canImport(Glibc)
  import Glibc
#endif

final class HeldByDynamicTLS { var me: HeldByDynamicTLS? }

let library = dlopen(CommandLine.arguments[1], RTLD_NOW)!
let keepInSlot = unsafeBitCast(
  dlsym(library, "dynamic_tls_keep")!, to: (@convention(c) (UnsafeMutableRawPointer?) -> Void).self)

/// Makes the cycle and keeps its address in the calling thread's copy of the variable only.
@inline(never) func keep() {
  let object = HeldByDynamicTLS()
  object.me = object
  keepInSlot(Unmanaged.passUnretained(object).toOpaque())
}

/// Overwrites the dead frames below the caller's (32 KiB of them) with zeros.
@inline(never) func scrubDeadFrames(depth: Int = 32) {
  withUnsafeTemporaryAllocation(byteCount: 1024, alignment: 16) { bytes in
    explicit_bzero(bytes.baseAddress!, bytes.count)
    if depth > 0 { scrubDeadFrames(depth: depth - 1) }
  }
}

let started = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
sem_init(started, 0, 0)
var thread = pthread_t()
pthread_create(&thread, nil, { _ in
  keep()
  scrubDeadFrames()
  sem_post(started)
  while true { pause() }
}, nil)
sem_wait(started)
print("kept")
