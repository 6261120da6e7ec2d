import CLeakRuntime

/// A count of the words of memory that refer to given objects, over the program's whole
/// writable memory as it was at the instant of a capture: the heap (malloc blocks of C code,
/// collection buffers, Dispatch's and the runtime's structures), global data and every stack.
///
/// A capture child cannot scan itself for this, because its own tables hold the address of every
/// object it captures. So it starts the census first, before it records any address: a process
/// forked from it then, which keeps that untouched image and scans it when asked
/// (``wordsReferring(to:)``). The tracker's tables are left out; so is memory shared with other
/// processes, and pages the kernel has not mapped (they hold only zeros). While swap is in use the
/// census gives no answer: a page in swap looks absent to it.
///
/// What it answers decides whether a reference count is *unbalanced*
/// (``RootedHeap/accounted(retainedByCaller:census:)``): a retain
/// that no word of memory accounts for, such as `Unmanaged.passRetained` whose pointer was dropped.
struct ReferenceCensus {
  private var process = cleak_census()
  private var started = false

  /// Starts the census process; call it before the capture writes any object address. On this
  /// thread's stack, it counts words from `programStackStart` up (the lowest address the root
  /// scan reads there), when given: the capture's own frames below hold nothing of the program's.
  init(progress: CaptureProcess.ProgressRecorder?, programStackStart: UInt? = nil) {
    started = cleak_census_begin(&process, progress?.shared, programStackStart ?? 0) != 0
  }

  /// For each object (ascending by start, not overlapping), how many words refer to it and where
  /// the first few are; `nil` when the census could not answer. The census answers once.
  mutating func wordsReferring(to objects: [cleak_census_object]) -> [cleak_census_result]? {
    guard started, !objects.isEmpty else { return nil }
    var results = [cleak_census_result](repeating: cleak_census_result(), count: objects.count)
    let answered = results.withUnsafeMutableBufferPointer { cleak_census_take(&process, objects, objects.count, $0.baseAddress) != 0 }
    return answered ? results : nil
  }

  /// Ends the census process.
  mutating func end() {
    if started { cleak_census_end(&process) }
    started = false
  }
}
