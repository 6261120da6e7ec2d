import CLeakRuntime

/// The concurrency runtime's private task structures, as the task reader reads them: a task's
/// flags and status, its status records (task groups and their children), its allocator's
/// slabs (async frames) and the prefix of its initial async context (the closure it runs).
///
/// Read from the Swift 6.3.1 concurrency runtime (swift-6.3.1-RELEASE: `include/swift/ABI/Task.h`,
/// `MetadataValues.h`, `TaskStatus.h`, `stdlib/public/Concurrency/TaskPrivate.h`,
/// `TaskAlloc.cpp`, `StackAllocator.h`), 64-bit Linux. The runtime exports its layout version
/// and task size (``Symbols``); with any other values the reader says so and reads nothing.
/// Offsets are in bytes from the start of the structure named.
enum ConcurrencyLayout {
  /// The runtime's exported constants that say which layout it has.
  enum Symbols {
    static let layoutVersion = "_swift_concurrency_debug_internal_layout_version"
    static let taskSize = "_swift_concurrency_debug_asyncTaskSize"
    static let slabMetadata = "_swift_concurrency_debug_asyncTaskSlabMetadata"
    /// The values this layout was read from.
    static let knownLayoutVersion: UInt32 = 1
    static let knownTaskSize: UInt = 208
  }

  /// `AsyncTask` (with its `Job` header), whose fragments follow it.
  enum Task {
    /// `Job::Flags` (32 bits): the job kind in the low byte (0: a task), then task flags; its
    /// offset is the C mirror's (`cleak_async_task_prefix`, SwiftConcurrencyLayout.h).
    static let jobFlags = UInt(MemoryLayout<cleak_async_task_prefix>.offset(of: \.flags)!)
    /// `Job::Id` (32 bits), numbered as jobs are made, in the upper half of the flags' word: it
    /// tells a task from a later one made at the same address.
    static let jobIDShift = UInt((MemoryLayout<cleak_async_task_prefix>.offset(of: \.id)! - Int(jobFlags)) * 8)
    /// The job id in the word at ``jobFlags``.
    static func jobID(inFlagsWord word: UInt) -> UInt32 { UInt32(truncatingIfNeeded: word >> jobIDShift) }
    static let jobKindMask: UInt32 = 0xFF
    static let jobKindTask: UInt32 = 0
    static let isChildTask: UInt32 = 1 << 24
    static let isFuture: UInt32 = 1 << 25
    static let isGroupChildTask: UInt32 = 1 << 26
    /// `ActiveTaskStatus`' flags (32 bits).
    static let status: UInt = 96
    static let statusIsRunning: UInt32 = 0x800
    static let statusIsComplete: UInt32 = 0x2000
    /// `ActiveTaskStatus`' innermost status record.
    static let statusRecords: UInt = 104
    /// The task allocator's first slab.
    static let firstSlab: UInt = 120
    /// `ChildFragment::Parent`, right after the task (whose size is ``Symbols/knownTaskSize``).
    static let parent: UInt = 208
    /// `ChildFragment::NextChild`, after the parent.
    static let nextChild: UInt = 216
  }

  /// The fragments between the task and its initial async context, and the context's prefix.
  enum Fragments {
    static let childFragmentSize: UInt = 16
    static let groupChildFragmentSize: UInt = 8
    /// `FutureFragment`: the wait queue, the result type's metadata, the error, then the result's
    /// storage (aligned for the result type).
    static let futureResultType: UInt = 8
    static let futureHeaderSize: UInt = 24
    /// The wait queue: the first task waiting for the value, with the future's status in the low
    /// bits (0 while it runs, 1 and 2 once it succeeded or failed).
    static let futureWaitQueue: UInt = 0
    static let waitQueueStatusMask: UInt = 3
    static let waitQueueExecuting: UInt = 0
    /// `FutureAsyncContextPrefix` and `AsyncContextPrefix`, which end where the initial
    /// context starts.
    static let futureContextPrefixSize: UInt = 32
    static let contextPrefixSize: UInt = 24
    /// The initial context's alignment.
    static let contextAlignment: UInt = 16
    /// The prefix's `closureContext` and `asyncEntryPoint`, in bytes before the context.
    static let closureContextBeforeContext: UInt = 16
    static let entryPointBeforeContext: UInt = 24
  }

  /// `AsyncContext`.
  enum AsyncContext {
    /// `Parent`: 0 in a task's initial context; its offset is the C mirror's
    /// (`cleak_async_context`, SwiftConcurrencyLayout.h).
    static let parent = UInt(MemoryLayout<cleak_async_context>.offset(of: \.parent)!)
  }

  /// `TaskStatusRecord`, `TaskGroupTaskStatusRecord` and `TaskDependencyStatusRecord`.
  enum StatusRecord {
    /// The record's flags: its kind in the low byte.
    static let flags: UInt = 0
    static let kindMask: UInt = 0xFF
    static let kindTaskDependency: UInt = 0
    static let kindTaskGroup: UInt = 2
    /// A dependency record's `DependentOn` (a union of two words: the task waited for, when
    /// waiting on a task), its `DependencyKind` (32 bits) and `NextWaitingTask`.
    static let dependentOn: UInt = 16
    static let dependencyKind: UInt = 32
    static let waitingOnTask: UInt32 = 1
    /// Suspended on a continuation: `DependentOn` is its `ContinuationAsyncContext`, in the
    /// task's own frames.
    static let waitingOnContinuation: UInt32 = 2
    /// Queued on an executor: `DependentOn` is a `SerialExecutorRef`, its identity (an actor,
    /// for a default actor's queue) first.
    static let enqueuedOnExecutor: UInt32 = 4
    static let nextWaitingTask: UInt = 40
    /// `Parent`: the next record.
    static let parent: UInt = 8
    /// A task group record's `FirstChild`.
    static let firstChild: UInt = 16
  }

  /// A slab of the task allocator (`StackAllocator::Slab`).
  enum Slab {
    /// The slab's metadata word (`_swift_concurrency_debug_asyncTaskSlabMetadata`).
    static let metadata: UInt = 0
    static let next: UInt = 8
    /// The word whose lower 32 bits are the slab's capacity and upper 32 bits the bytes in use.
    static let usedWord: UInt = 16
    static let usedShift: UInt = 32
    /// Where the allocations start.
    static let headerSize: UInt = 32
  }

  /// An async function pointer: a 32-bit relative offset to the function, then its context size.
  enum AsyncFunctionPointer {
    static let contextSizeShift: UInt = 32
  }

  /// The closure context of the task `Task.sleep` schedules to wake the sleeper: the header,
  /// then the address of the sleep token, a word that holds the sleeper while it sleeps and 1 to
  /// 3 once the sleep is over.
  enum SleepWakeUp {
    static let token: UInt = 16
    static let finishedStates: ClosedRange<UInt> = 1...3
  }

  /// `CheckedContinuationCanary` (`CheckedContinuation.swift`): no stored properties; its tail,
  /// right after the object's header, is `(UnsafeRawPointer?, String)`: the continuation (the
  /// waiting task's address, until it is resumed), then the function that made it.
  enum CheckedContinuationCanary {
    static let continuation: UInt = 16
  }
}
