import CLeakRuntime

#if canImport(Glibc)
  import Glibc
#endif

/// The work libdispatch holds until it runs: blocks and tasks waiting on the main queue, on the
/// global queues (and on the serial queues waiting there), blocks `asyncAfter` scheduled,
/// tasks sleeping in `Task.sleep`, and the handlers of the sources it keeps registered (signal,
/// read and write sources in the epoll backend, armed timer sources in the timer heaps), which
/// an event can run at any time. Each block is a root of kind `runtime` for the closure it
/// runs, which holds what the closure captures; each task is a root for the task, which holds
/// its closure and what its frames hold.
///
/// ```text
/// where closure #1 in LeakTestSupport.Reminder.remindInAnHour() (HiddenOwnerSnippets.swift:113) is held by a block asyncAfter scheduled, not yet run
/// where closure #1 in closure #1 in SignalStorage.init() is held by Dispatch signal source (SIGUSR2) event handler
/// ```
///
/// Where they are (libdispatch on Linux, read-only, ``DispatchLayout``): a queue's items are a
/// list of continuations, each holding a heap block when its flags (its first word, small) say
/// so; a list element whose first word is large is an object instead: a queue waiting on this
/// one (whose own items are read, one level down), or a source (recognised by its unote's back
/// link), for `asyncAfter` its internal timer source with the block in its event handler. The
/// concurrency runtime enqueues a task's job as a continuation without a block whose context is
/// the task (`dispatch_async_f`, and `dispatch_after_f` for `Task.sleep`). Armed timers are in
/// the timer heaps; registered sources' unotes in the lists of the epoll backend's muxnotes. The
/// global queues, the manager queue, the timer heaps and the muxnotes are local symbols of
/// libdispatch, found in its full symbol table; without it only the main queue is read. Nothing
/// is read when libdispatch's layouts are not the ones checked (``DispatchLayoutCheck``).
package struct PendingDispatchWork {
  /// Which closure contexts to report: a capture asks only for those it captured.
  var keeping: (UInt) -> Bool = { _ in true }
  var reflector = RuntimeReflector.shared

  /// The main queue, the global queues with the manager queue, the timer heaps and the
  /// muxnotes of the epoll backend, found once, after libdispatch's layouts are checked.
  static let locations: (main: UInt, global: [UInt], timerHeaps: UInt, muxnotes: UInt) = {
    guard DispatchLayoutCheck.mismatch == nil else { return (0, [], 0, 0) }
    let main = ProcessSymbols.address(of: "_dispatch_main_q") ?? 0
    guard let anchor = ProcessSymbols.address(of: "dispatch_source_create") else { return (main, [], 0, 0) }
    let roots = cleak_local_symbol(anchor, "_dispatch_root_queues")
    let manager = cleak_local_symbol(anchor, "_dispatch_mgr_q")
    let rootQueues = (0..<DispatchLayout.RootQueues.count).map { roots &+ $0 &* DispatchLayout.RootQueues.stride }
    let global = (roots == 0 ? [] : rootQueues) + (manager == 0 ? [] : [manager])
    return (main, global, cleak_local_symbol(anchor, "_dispatch_timers_heap"), cleak_local_symbol(anchor, "_dispatch_sources"))
  }()

  /// Every block and task waiting to run, labelled by where it waits, as references to the
  /// closures the blocks run (only those whose context `keeping` accepts) and to the tasks.
  func work() -> [RawReference] {
    let locations = Self.locations
    var found: [RawReference] = []
    if locations.main != 0 { found += items(ofQueue: locations.main, labels: .waiting(on: "the main queue"), depth: 0) }
    for queue in locations.global { found += items(ofQueue: queue, labels: .waiting(on: "a global queue"), depth: 0) }
    if locations.timerHeaps != 0 { found += timerWork(inTimerHeaps: locations.timerHeaps) }
    if locations.muxnotes != 0 { found += registeredSourceHandlers(inMuxnotes: locations.muxnotes) }
    return found
  }

  /// Whether the task at `address` sleeps in `Task.sleep` with its timer where ``work()`` reads
  /// it. A task suspends a moment before libdispatch has its timer there.
  package static func holdsSleeping(task address: UInt) -> Bool {
    PendingDispatchWork().work().contains { $0.target == address && $0.label == Labels.sleeping }
  }

  /// The labels of a block's and of a task's references from one place. A block's names the
  /// block that holds a closure; a task's names what holds the task, as a report says it:
  /// `where Task (Worker.swift:9) is held by the main queue, until the task runs`.
  private struct Labels {
    var block: String
    var task: String

    static func waiting(on place: String) -> Labels {
      Labels(block: "a block waiting on \(place)", task: "\(place), until the task runs")
    }
    static let pending = Labels(block: "pending block", task: "pending task")
    static let after = Labels(block: "a block asyncAfter scheduled, not yet run", task: "a dispatch timer, until the task runs")
    static let sleeping = "the timer of Task.sleep, until the task wakes"
  }

  static let queueTypeName = "Dispatch.DispatchQueue"

  /// The blocks and tasks waiting on a `DispatchQueue` (the Swift class wraps the C queue),
  /// labelled `pending block` and `pending task`: the queue holds them until they run.
  func references(ofQueue object: UInt) -> [RawReference] {
    guard DispatchLayoutCheck.mismatch == nil, let queue = MemoryReader.readWord(at: object &+ DispatchLayout.SwiftWrapper.wrapped),
      queue != 0
    else { return [] }
    return items(ofQueue: queue, labels: .pending, depth: 0)
  }

  /// The blocks and tasks on the queue `queue` (and, `depth` levels down, on the queues waiting
  /// there).
  private func items(ofQueue queue: UInt, labels: Labels, depth: Int) -> [RawReference] {
    guard var item = MemoryReader.readWord(at: queue &+ DispatchLayout.Queue.itemsHead),
      let tail = MemoryReader.readWord(at: queue &+ DispatchLayout.Queue.itemsTail)
    else { return [] }
    var found: [RawReference] = []
    var walked = 0
    // An empty list's head is 0; a global queue a worker is popping from right now has a mark.
    while item != 0 && item != DispatchLayout.Queue.headBeingPopped && walked < Self.maxListLength {
      walked += 1
      guard let first = MemoryReader.readWord(at: item) else { break }
      if first < DispatchLayout.Continuation.flagsLimit {
        found += reference(ofContinuation: item, labels: labels).map { [$0] } ?? []
      } else if let handler = DispatchReferences.afterTimerHandler(ofSource: item) {
        found += reference(ofContinuation: handler, labels: .after).map { [$0] } ?? []
      } else if depth == 0 {
        found += items(ofQueue: item, labels: labels, depth: depth + 1)
      }
      if item == tail { break }
      guard let next = MemoryReader.readWord(at: item &+ DispatchLayout.Continuation.next) else { break }
      item = next
    }
    return found
  }

  /// The closure of a continuation's block, or the task a continuation without a block runs (its
  /// context, when that is a task); for the task that wakes a task in `Task.sleep`, the sleeper,
  /// or nothing once the sleep is over.
  private func reference(ofContinuation continuation: UInt, labels: Labels) -> RawReference? {
    if let block = DispatchReferences.closureReference(ofContinuation: continuation, label: labels.block, keeping: keeping) { return block }
    guard let flags = MemoryReader.readWord(at: continuation), flags & DispatchLayout.Continuation.blockFlag == 0,
      let task = MemoryReader.readWord(at: continuation &+ DispatchLayout.Continuation.context), TaskReferences.isTask(task)
    else { return nil }
    switch TaskReferences(reflector: reflector).sleep(wokenBy: task) {
    case .sleeper(let sleeper): return RawReference(label: Labels.sleeping, ownership: .strong, target: sleeper)
    case .over: return nil
    case nil: return RawReference(label: labels.task, ownership: .strong, target: task)
    }
  }

  /// The work of the timers armed in the timer heaps at `heaps` (each: a count, the number of
  /// segments, the first two entries, the segment table): the blocks and tasks of `asyncAfter`
  /// and `Task.sleep`, and the handlers of timer sources. Entries are timer unotes; only even
  /// slots are read (the heap by target time; odd slots order the same timers by deadline).
  private func timerWork(inTimerHeaps heaps: UInt) -> [RawReference] {
    typealias Heaps = DispatchLayout.TimerHeaps
    var found: [RawReference] = []
    for heap in (0..<Heaps.count).map({ heaps &+ $0 &* Heaps.stride }) {
      guard let word = MemoryReader.readWord(at: heap &+ Heaps.countAndSegments) else { continue }
      let count = UInt32(truncatingIfNeeded: word)
      let segments = UInt32(truncatingIfNeeded: word >> Heaps.segmentsShift) & Heaps.segmentsMask
      guard count < 1 << 20 else { continue }  // not a heap this code understands
      for index in stride(from: UInt32(0), to: count, by: 2) {
        guard let slot = Self.slot(index, ofTimerHeap: heap, segments: segments), let unote = MemoryReader.readWord(at: slot),
          unote != 0, let owner = MemoryReader.readWord(at: unote &+ DispatchLayout.Unote.ownerLink)
        else { continue }
        if let handler = DispatchReferences.afterTimerHandler(ofSource: ~owner) {
          found += reference(ofContinuation: handler, labels: .after).map { [$0] } ?? []
        } else {
          found += DispatchReferences.handlerReferences(ofRegisteredUnote: unote, keeping: keeping)
        }
      }
    }
    return found
  }

  /// The handlers of the sources registered in the epoll backend, whose muxnote lists are at
  /// `muxnotes`: each bucket lists muxnotes, each muxnote the linkages of its readers' and
  /// writers' unotes, each unote right after its linkage.
  private func registeredSourceHandlers(inMuxnotes muxnotes: UInt) -> [RawReference] {
    typealias Layout = DispatchLayout
    var found: [RawReference] = []
    var walked = 0
    for bucket in 0..<Layout.Muxnotes.bucketCount {
      var muxnote = MemoryReader.readWord(at: muxnotes &+ bucket &* Layout.Muxnotes.stride) ?? 0
      while muxnote != 0 && walked < Self.maxListLength {
        walked += 1
        for head in [Layout.Muxnote.readers, Layout.Muxnote.writers] {
          var linkage = MemoryReader.readWord(at: muxnote &+ head) ?? 0
          while linkage != 0 && walked < Self.maxListLength {
            walked += 1
            found += DispatchReferences.handlerReferences(ofRegisteredUnote: linkage &+ Layout.UnoteLinkage.size, keeping: keeping)
            linkage = MemoryReader.readWord(at: linkage &+ Layout.UnoteLinkage.next) ?? 0
          }
        }
        muxnote = MemoryReader.readWord(at: muxnote &+ Layout.Muxnote.next) ?? 0
      }
    }
    return found
  }

  /// The address of entry `index` of a timer heap: libdispatch's `_dispatch_timer_heap_get_slot`.
  /// The first two entries are in the heap itself; the rest in segments of 8, 8, 16, 32… entries,
  /// whose table is the last segment (the newest, largest one holds the table at its end).
  private static func slot(_ index: UInt32, ofTimerHeap heap: UInt, segments: UInt32) -> UInt? {
    let wordSize = UInt(MemoryLayout<UInt>.size)
    if index < 2 { return heap &+ DispatchLayout.TimerHeaps.firstEntries &+ wordSize &* UInt(index) }
    var index = index - 2
    let initialCapacity = DispatchLayout.TimerHeaps.initialSegmentCapacity
    let segment = UInt32((initialCapacity - 1).leadingZeroBitCount - (index | (initialCapacity - 1)).leadingZeroBitCount)
    guard segments >= 1, let table = MemoryReader.readWord(at: heap &+ DispatchLayout.TimerHeaps.segmentTable), table != 0 else {
      return nil
    }
    let base: UInt
    if segment + 1 == segments {
      base = table
    } else {
      guard segments >= 2, segment + 1 < segments else { return nil }
      let capacity = UInt(initialCapacity) << (segments - 2)
      guard let address = MemoryReader.readWord(at: table &+ wordSize &* (capacity &- UInt(segment) &- 1)) else { return nil }
      base = address
    }
    if segment > 0 { index -= initialCapacity << (segment - 1) }
    return base &+ wordSize &* UInt(index)
  }

  /// A bound on a list's walk, against a list that a torn read made circular.
  private static let maxListLength = 100_000
}
