// The allocation patterns `tracking-patterns.py` times, the same code in a program that does not
// link LeakDetector (`allocation-baseline PATTERN`, also run under `leak-detector run`) and in one
// that tracks in-process (`allocation-bench tracked|stacks PATTERN`). Each returns the best of
// `repetitions`, in ns per allocation + deallocation; every object escapes into a ring or an
// array, so none is stack-promoted.

#if canImport(Glibc)
  import Glibc
#endif

/// A class of 32 bytes (header and two words).
public final class SmallNode {
  public var first: Int
  public var second = 0

  public init(_ value: Int) {
    first = value
  }
}

/// A class of 72 bytes: another `malloc` size class than ``SmallNode``'s.
public final class LargeNode {
  public var first: Int
  public var second = 0
  public var third = 0
  public var fourth = 0
  public var fifth = 0
  public var sixth = 0
  public var seventh = 0

  public init(_ value: Int) {
    first = value
  }
}

public enum AllocationPattern: String, CaseIterable, Sendable {
  /// A ring of 512 `AnyObject?` slots, each replaced in turn by a ``SmallNode`` or a ``LargeNode``.
  case twoSizeRing = "two-size-ring"
  /// A ring of 256 ``SmallNode`` slots, each replaced in turn: one size, freed in order.
  case churn
  /// Four threads at once, each running the churn loop on a ring of its own (timed by the
  /// threads' CPU time: on a machine with fewer cores, wall time would measure the scheduler).
  case threads
  /// 200,000 objects kept alive in an array, then all released: a live set far beyond the caches.
  case growth

  /// Allocations per repetition at full size; `small` (CI) runs a tenth.
  func iterations(small: Bool) -> Int {
    let full =
      switch self {
      case .twoSizeRing, .churn: 1_000_000
      case .threads: 250_000  // per thread
      case .growth: 200_000
      }
    return small ? full / 10 : full
  }
}

@inline(never)
func twoSizeRing(iterations: Int) -> Int {
  var ring = [AnyObject?](repeating: nil, count: 512)
  var checksum = 0
  for index in 0..<iterations {
    if index & 1 == 0 {
      let object = SmallNode(index)
      ring[index & 511] = object
      checksum &+= object.first
    } else {
      let object = LargeNode(index)
      ring[index & 511] = object
      checksum &+= object.first
    }
  }
  withExtendedLifetime(ring) {}
  return checksum
}

@inline(never)
func churn(iterations: Int) -> Int {
  var ring = [SmallNode?](repeating: nil, count: 256)
  var checksum = 0
  for index in 0..<iterations {
    let object = SmallNode(index)
    ring[index & 255] = object
    checksum &+= object.first
  }
  withExtendedLifetime(ring) {}
  return checksum
}

@inline(never)
func growth(iterations: Int, into objects: inout [SmallNode]) -> Int {
  var checksum = 0
  for index in 0..<iterations {
    let object = SmallNode(index)
    objects.append(object)
    checksum &+= object.first
  }
  objects.removeAll(keepingCapacity: true)
  return checksum
}

/// Runs `body` on `count` threads at once and waits for them.
func onThreads(_ count: Int, _ body: @escaping @Sendable () -> Void) {
  final class Work: @unchecked Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
  }
  var threads: [pthread_t] = []
  for _ in 0..<count {
    var thread = pthread_t()
    let work = Unmanaged.passRetained(Work(body)).toOpaque()
    let created = pthread_create(
      &thread, nil,
      { argument in
        let work = Unmanaged<Work>.fromOpaque(argument!).takeRetainedValue()
        work.body()
        return nil
      }, work)
    precondition(created == 0, "pthread_create failed: \(created)")
    threads.append(thread)
  }
  for thread in threads { pthread_join(thread, nil) }
}

/// The CPU time of the calling thread, in ns.
func threadCPUNanoseconds() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
  return Double(time.tv_sec) * 1e9 + Double(time.tv_nsec)
}

/// The CPU time `count` threads spend running `body` at once, in ns.
func cpuNanosecondsOnThreads(_ count: Int, _ body: @escaping @Sendable () -> Void) -> Double {
  final class Total: @unchecked Sendable {
    private var lock = pthread_mutex_t()
    private var nanoseconds = 0.0
    init() { pthread_mutex_init(&lock, nil) }
    func add(_ value: Double) {
      pthread_mutex_lock(&lock)
      nanoseconds += value
      pthread_mutex_unlock(&lock)
    }
    var value: Double {
      pthread_mutex_lock(&lock)
      defer { pthread_mutex_unlock(&lock) }
      return nanoseconds
    }
  }
  let total = Total()
  onThreads(count) {
    let start = threadCPUNanoseconds()
    body()
    total.add(threadCPUNanoseconds() - start)
  }
  return total.value
}

func nanoseconds(_ body: () -> Void) -> Double {
  let start = ContinuousClock.now
  body()
  let elapsed = ContinuousClock.now - start
  return Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
}

/// The best of `repetitions` runs of `pattern`, in ns per allocation + deallocation (for
/// ``AllocationPattern/threads``, the threads' CPU time over all their allocations).
@inline(never)
public func bestNanosecondsPerAllocation(_ pattern: AllocationPattern, small: Bool = false, repetitions: Int = 9) -> Double {
  let iterations = pattern.iterations(small: small)
  var best = Double.infinity
  var checksum = 0
  var kept: [SmallNode] = []
  kept.reserveCapacity(iterations)
  for _ in 0..<repetitions {
    let elapsed: Double
    switch pattern {
    case .twoSizeRing: elapsed = nanoseconds { checksum &+= twoSizeRing(iterations: iterations) } / Double(iterations)
    case .churn: elapsed = nanoseconds { checksum &+= churn(iterations: iterations) } / Double(iterations)
    case .growth: elapsed = nanoseconds { checksum &+= growth(iterations: iterations, into: &kept) } / Double(iterations)
    case .threads:
      let threadCount = 4
      elapsed = cpuNanosecondsOnThreads(threadCount) { _ = churn(iterations: iterations) } / Double(iterations * threadCount)
    }
    best = min(best, elapsed)
  }
  if checksum == 42 { print("") }  // keeps the loops' work observable
  return best
}
