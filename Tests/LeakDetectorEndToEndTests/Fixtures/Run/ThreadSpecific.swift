// Objects that a live thread keeps in its pthread-specific values, each retained once by the
// value's pointer (`Unmanaged.passRetained`), as C code and swift-nio's `ThreadSpecificVariable`
// keep them: none is leaked while the thread lives. The thread blocks for ever; the main thread
// then exits. No stack holds a copy of a value's pointer, not even in dead frames.
//
// The first argument chooses what the thread keeps:
// - `few`: a value of one of the first keys (glibc keeps it in the thread's descriptor);
// - `many`: a value of a key past the first 32, created after 40 others (glibc keeps it in a
//   block of its own, from malloc, that the descriptor points to);
// - `loop`: an event loop's thread-specific variable, as swift-nio's: a key whose destructor
//   releases a retained box, the box holding the variable and the value, and a thread that runs a
//   loop blocked in `poll`;
// - `main`: a value of the main thread's, which blocks for ever while the other thread exits the
//   process (so the capture runs on that thread).
#if canImport(Glibc)
  import Glibc
#endif

final class KeptByFewKeys { var payload = [1, 2, 3] }
final class KeptByKeyPast32 { var payload = [4, 5, 6] }
final class ResolverQueue { var pending: [String] = [] }
final class KeptByMainThread { var payload = [7, 8, 9] }

/// What a thread-specific variable's value is kept in: the variable and the value.
final class Box<Value> {
  let value: Value
  init(_ value: Value) { self.value = value }
}

/// A value per thread, as swift-nio's `ThreadSpecificVariable`: each thread's value lives in a
/// box retained by the thread's pthread-specific value, released by the key's destructor when
/// the thread exits.
final class ThreadSpecificVariable<Value: AnyObject> {
  private var key = pthread_key_t()

  init() {
    pthread_key_create(&key) { Unmanaged<Box<(AnyObject, AnyObject)>>.fromOpaque($0!).release() }
  }

  var currentValue: Value? {
    get {
      pthread_getspecific(key).map {
        Unmanaged<Box<(AnyObject, AnyObject)>>.fromOpaque($0).takeUnretainedValue().value.1 as! Value
      }
    }
    set {
      if let old = pthread_getspecific(key) { Unmanaged<Box<(AnyObject, AnyObject)>>.fromOpaque(old).release() }
      pthread_setspecific(key, newValue.map { Unmanaged.passRetained(Box<(AnyObject, AnyObject)>((self, $0))).toOpaque() })
    }
  }
}

/// The resolver queue of each event loop's thread.
let resolverQueues = ThreadSpecificVariable<ResolverQueue>()

/// Creates a key and sets its value on the calling thread to a new object, retained; returns the
/// key. The object's pointer is left only in frames that have returned.
@inline(never) func keep(_ make: () -> AnyObject) -> pthread_key_t {
  var key = pthread_key_t()
  pthread_key_create(&key, nil)
  pthread_setspecific(key, Unmanaged.passRetained(make()).toOpaque())
  return key
}

/// Overwrites the dead frames below the caller's (32 KiB of them) with zeros, as a busy
/// thread's later calls would.
@inline(never) func scrubDeadFrames(depth: Int = 32) {
  withUnsafeTemporaryAllocation(byteCount: 1024, alignment: 16) { bytes in
    explicit_bzero(bytes.baseAddress!, bytes.count)
    if depth > 0 { scrubDeadFrames(depth: depth - 1) }
  }
}

/// The first argument, read before any thread starts.
let variant = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "few"
let started = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
sem_init(started, 0, 0)

/// Runs the thread's part of `variant`, then tells the main thread and blocks for ever.
func threadBody() {
  switch variant {
  case "many":
    var others = [pthread_key_t](repeating: 0, count: 40)
    for index in others.indices { pthread_key_create(&others[index], nil) }
    let key = keep { KeptByKeyPast32() }
    precondition(key >= 32, "key \(key) is one of the first 32")
  case "loop":
    resolverQueues.currentValue = ResolverQueue()
  case "main":
    print("kept")
    exit(0)
  default:
    let key = keep { KeptByFewKeys() }
    precondition(key < 32, "key \(key) is not one of the first 32")
  }
  scrubDeadFrames()
  sem_post(started)
  if variant == "loop" {
    // An event loop waiting for events on a descriptor that never has any.
    var ends: [Int32] = [0, 0]
    pipe(&ends)
    var descriptor = pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)
    while true { _ = poll(&descriptor, 1, -1) }
  }
  while true { pause() }
}

if variant == "main" {
  _ = keep { KeptByMainThread() }
  scrubDeadFrames()
}
var thread = pthread_t()
pthread_create(&thread, nil, { _ in
  threadBody()
  return nil
}, nil)
sem_wait(started)
print("kept")
