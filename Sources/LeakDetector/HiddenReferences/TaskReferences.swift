import CLeakRuntime
import HeapGraph

#if canImport(Glibc)
  import Glibc
#endif

/// What a task of Swift concurrency that has not completed holds: the closure it runs, what its
/// suspended async frames hold, and the children its task groups keep.
///
/// The runtime keeps the closure's context (+1, until the task completes) in the prefix of the
/// task's initial async context, which follows the task object and its fragments. For
/// `Task { … }` that context is a thunk's, whose one capture is the closure written in the
/// source; the edge goes to that closure, named by its function. Async frames live in the task
/// allocator's slabs, chained from the task; only the used part of each slab is read. Frame
/// words have no types, so they are conservative references: the capture keeps one only where
/// the target's reference count has a retain no precise reference explains (a stale slot of a
/// released `self` is dropped). A completed task holds nothing; a running task's frames and
/// status records change under the reader, so only its closure is read.
///
/// ```text
/// Task.closure -> closure #1 in LeakDetectorTests.TaskOwner.start() (strong)
/// Task.async frame -> LeakDetectorTests.TaskOwner (strong, conservative)
/// Task.child task -> Task (strong)
/// ```
///
/// The layout is ``ConcurrencyLayout``, the concurrency runtime's layout version 1 (a 208-byte
/// task); with any other runtime the reader says so and reads nothing.
package struct TaskReferences {
  var reflector: RuntimeReflector

  /// The runtime's exported constants, or `nil` when they do not describe the known layout.
  struct Runtime {
    var slabMetadata: UInt

    static let current: Runtime? = {
      func value(_ symbol: String) -> UInt? {
        ProcessSymbols.address(of: symbol).flatMap { MemoryReader.readWord(at: $0) }
      }
      typealias Symbols = ConcurrencyLayout.Symbols
      guard let version = value(Symbols.layoutVersion), UInt32(truncatingIfNeeded: version) == Symbols.knownLayoutVersion,
        value(Symbols.taskSize) == Symbols.knownTaskSize, let slabMetadata = value(Symbols.slabMetadata)
      else { return nil }
      return Runtime(slabMetadata: slabMetadata)
    }()
  }

  /// The task's references, and a note when the runtime's layout is not the known one.
  func references(ofTask task: UInt) -> (references: [RawReference], diagnostics: [String]) {
    guard let runtime = Runtime.current else {
      return ([], ["the concurrency runtime's task layout is not the known one (version 1, 208 bytes); what tasks hold is not read"])
    }
    guard ConcurrencyLayoutCheck.mismatch == nil else { return ([], []) }  // the capture says why, once
    guard let state = State(ofTask: task) else { return ([], []) }
    guard let closure = closure(ofTask: task, state: state) else {
      return ([], ["Task at 0x\(String(task, radix: 16)): its initial context could not be found; what it holds is not read"])
    }
    var references = [closure]
    if !state.isRunning {  // the frames and status records hold still
      references += frameReferences(ofTask: task, slabMetadata: runtime.slabMetadata) + childTaskReferences(ofTask: task)
    }
    references += waiterReferences(ofTask: task, state: state)
    if !state.isRunning { references += actorQueueReference(ofTask: task) }
    // A child task keeps its parent: the parent cannot end before its children (it waits for its
    // group or its `async let`s), so what the parent's frames hold lives as long as any child.
    if state.jobFlags & ConcurrencyLayout.Task.isChildTask != 0,
      let parent = MemoryReader.readWord(at: task &+ ConcurrencyLayout.Task.parent),
      Self.isTask(parent)
    {
      references.append(RawReference(label: WaitingTask.parentLabel, ownership: .strong, target: parent))
    }
    return (references, [])
  }

  /// The code of the closure the task runs (the one written in the source, where a thunk wraps
  /// it), or `nil` for a completed task or an unknown layout: a task's "allocation site".
  func closureFunction(ofTask task: UInt) -> UInt? {
    guard Runtime.current != nil, let state = State(ofTask: task) else { return nil }
    return closure(ofTask: task, state: state).map(\.function)
  }

  /// Where the task at `task` waits, when it neither runs nor has completed: the resume point of
  /// the function it waits in, then its callers' (one past each, as return addresses are).
  func suspensionFrames(ofTask task: UInt) -> [UInt] {
    guard Runtime.current != nil, let state = State(ofTask: task), !state.isRunning else { return [] }
    var frames = [UInt](repeating: 0, count: 64)
    let count = Int(cleak_task_suspension_frames(task, &frames, Int32(frames.count)))
    return Array(frames.prefix(max(count, 0)))
  }

  /// The job flags and status of a task that has not completed.
  private struct State {
    var jobFlags: UInt32
    var isRunning: Bool

    init?(ofTask task: UInt) {
      typealias Task = ConcurrencyLayout.Task
      guard let jobWord = MemoryReader.readWord(at: task &+ Task.jobFlags), let statusWord = MemoryReader.readWord(at: task &+ Task.status)
      else { return nil }
      let jobFlags = UInt32(truncatingIfNeeded: jobWord)
      let status = UInt32(truncatingIfNeeded: statusWord)
      // Not a task, or completed: nothing to read.
      guard jobFlags & Task.jobKindMask == Task.jobKindTask, status & Task.statusIsComplete == 0 else { return nil }
      self.jobFlags = jobFlags
      isRunning = status & Task.statusIsRunning != 0
    }
  }

  /// The edge to the task's closure, from its initial context's prefix.
  private func closure(ofTask task: UInt, state: State) -> RawReference? {
    guard let (context, entry) = closureContextAndEntry(ofTask: task, state: state) else { return nil }
    // An `async let` child borrows its closure from the parent's frame.
    let isAsyncLetChild =
      state.jobFlags & ConcurrencyLayout.Task.isChildTask != 0 && state.jobFlags & ConcurrencyLayout.Task.isGroupChildTask == 0
    return closureReference(context: context, entry: entry, owned: !isAsyncLetChild)
  }

  /// The context and the entry of the closure the task was created with, as its initial
  /// context's prefix keeps them (for `Task { }`, a thunk's).
  private func closureContextAndEntry(ofTask task: UInt, state: State) -> (context: UInt, entry: UInt)? {
    typealias Fragments = ConcurrencyLayout.Fragments
    guard let initialContext = initialContext(ofTask: task, jobFlags: state.jobFlags),
      // the initial context has no parent: the layout checks out
      MemoryReader.readWord(at: initialContext &+ ConcurrencyLayout.AsyncContext.parent) == 0,
      let context = MemoryReader.readWord(at: initialContext &- Fragments.closureContextBeforeContext), context != 0
    else { return nil }
    return (context, MemoryReader.readWord(at: initialContext &- Fragments.entryPointBeforeContext) ?? 0)
  }

  /// The children a task group of the task keeps (heap tasks the group retains until their
  /// results are taken), found through the task's status records: a task group's record has its
  /// first child; each child links the next in its child fragment. `async let` children live in
  /// the task's own frames, and are read there.
  private func childTaskReferences(ofTask task: UInt) -> [RawReference] {
    typealias Record = ConcurrencyLayout.StatusRecord
    typealias Task = ConcurrencyLayout.Task
    var references: [RawReference] = []
    var record = MemoryReader.readWord(at: task &+ Task.statusRecords) ?? 0
    var walked = 0
    while record != 0, walked < 64, let flags = MemoryReader.readWord(at: record &+ Record.flags) {
      walked += 1
      if flags & Record.kindMask == Record.kindTaskGroup {
        var child = MemoryReader.readWord(at: record &+ Record.firstChild) ?? 0
        var children = 0
        while child != 0, children < 100_000, Self.isTask(child), let childFlags = MemoryReader.readWord(at: child &+ Task.jobFlags),
          UInt32(truncatingIfNeeded: childFlags) & Task.isGroupChildTask != 0
        {
          children += 1
          references.append(RawReference(label: "child task", ownership: .strong, target: child))
          child = MemoryReader.readWord(at: child &+ Task.nextChild) ?? 0
        }
      }
      record = MemoryReader.readWord(at: record &+ Record.parent) ?? 0
    }
    return references
  }

  /// Whether `address` is a task object: metadata of the task kind, job kind 0 in the job flags.
  static func isTask(_ address: UInt) -> Bool {
    guard address != 0, address & 15 == 0, let metadata = MemoryReader.readWord(at: address), metadata & 7 == 0,
      let kindWord = MemoryReader.readWord(at: metadata), HeapObjectKind.of(kindWord: kindWord) == .task,
      let jobFlags = MemoryReader.readWord(at: address &+ ConcurrencyLayout.Task.jobFlags)
    else { return false }
    return UInt32(truncatingIfNeeded: jobFlags) & ConcurrencyLayout.Task.jobKindMask == ConcurrencyLayout.Task.jobKindTask
  }

  /// The class `withCheckedContinuation` stores its continuation in.
  static let canaryTypeName = "Swift.CheckedContinuationCanary"

  /// The continuation a `CheckedContinuation`'s canary keeps in its tail (the task it resumes,
  /// while that task waits), as a conservative reference: see ``LayoutItem/continuation(offset:label:)``.
  static func references(ofCanary canary: UInt) -> [RawReference] {
    guard ConcurrencyLayoutCheck.mismatch == nil,
      let task = MemoryReader.readWord(at: canary &+ ConcurrencyLayout.CheckedContinuationCanary.continuation), isWaiting(task)
    else { return [] }
    return [RawReference(label: "continuation", ownership: .strong, target: task, isConservative: true)]
  }

  /// Whether `address` is a task that has not completed: one a continuation can still resume.
  static func isWaiting(_ address: UInt) -> Bool {
    isTask(address) && State(ofTask: address) != nil
  }

  /// The job id of the task at `address` (``ConcurrencyLayout/Task/jobIDShift``), or `nil` when
  /// its memory cannot be read.
  static func jobID(ofTask address: UInt) -> UInt32? {
    MemoryReader.readWord(at: address &+ ConcurrencyLayout.Task.jobFlags).map(ConcurrencyLayout.Task.jobID(inFlagsWord:))
  }

  /// Whether the task at `address`, which has not completed, runs on a thread now.
  static func isRunning(_ address: UInt) -> Bool {
    State(ofTask: address)?.isRunning ?? false
  }

  /// Whether the task at `address` has run to a suspension point and waits there: it neither runs
  /// nor has completed, and its resume context is no longer the initial context it was made with
  /// (a task made but not run yet still resumes there). Tests wait for this state instead of for
  /// time; a task resumed but not yet running again counts too.
  package static func hasSuspended(_ address: UInt) -> Bool {
    guard Runtime.current != nil, isTask(address), let state = State(ofTask: address), !state.isRunning,
      let initial = TaskReferences(reflector: RuntimeReflector.shared).initialContext(ofTask: address, jobFlags: state.jobFlags),
      let resumeContext = MemoryReader.read(\cleak_async_task_prefix.resumeContext, of: address)
    else { return false }
    return resumeContext != initial
  }

  /// Whether the task at `address` is suspended on a continuation (`withUnsafeContinuation`,
  /// `withCheckedContinuation`, an `AsyncStream`'s `next()`, `Task.sleep`): it neither runs nor
  /// has completed, and its dependency status record says it waits on a continuation. Such a
  /// task keeps one retain of itself for whoever resumes it (``ResumerRetain``).
  static func waitsOnContinuation(_ address: UInt) -> Bool {
    guard Runtime.current != nil, isTask(address), let state = State(ofTask: address), !state.isRunning else { return false }
    return dependency(of: address)?.kind == ConcurrencyLayout.StatusRecord.waitingOnContinuation
  }

  /// Whether the task at `address` has completed (its closure and what it captured are released
  /// before the runtime marks it so); `false` for memory that is not a task.
  package static func hasCompleted(_ address: UInt) -> Bool {
    guard isTask(address), let status = MemoryReader.readWord(at: address &+ ConcurrencyLayout.Task.status) else { return false }
    return UInt32(truncatingIfNeeded: status) & ConcurrencyLayout.Task.statusIsComplete != 0
  }

  /// What a task that wakes a task in `Task.sleep` stands for, from its sleep token.
  enum Sleep: Equatable {
    /// The task asleep, which the wake-up task will resume.
    case sleeper(UInt)
    /// The sleep is over (it finished, or was cancelled): the wake-up task holds nothing.
    case over
  }

  /// The sleep `wakeTask` ends, or `nil` when `wakeTask` is not a wake-up task. `Task.sleep`
  /// suspends the sleeper on a continuation it stores in a word of its own (the sleep token),
  /// and schedules a small task whose closure captures only that token's address: the token's
  /// word is the sleeper's address while it sleeps (its two low bits clear), 1 to 3 once the
  /// sleep is over. A cancelled sleep leaves its wake-up task scheduled until the deadline.
  func sleep(wokenBy wakeTask: UInt) -> Sleep? {
    guard Runtime.current != nil, let state = State(ofTask: wakeTask),
      let (context, _) = closureContextAndEntry(ofTask: wakeTask, state: state),
      let token = MemoryReader.readWord(at: context &+ ConcurrencyLayout.SleepWakeUp.token), token & 7 == 0,
      let word = MemoryReader.readWord(at: token)
    else { return nil }
    if ConcurrencyLayout.SleepWakeUp.finishedStates.contains(word) { return .over }
    return word & 3 == 0 && Self.isTask(word) ? .sleeper(word) : nil
  }

  /// Where the task's initial async context starts: after the task object, its child and
  /// group-child fragments, and its future fragment with the result's storage, then the
  /// context's prefix.
  private func initialContext(ofTask task: UInt, jobFlags: UInt32) -> UInt? {
    typealias Task = ConcurrencyLayout.Task
    typealias Fragments = ConcurrencyLayout.Fragments
    var offset = Self.futureFragmentOffset(jobFlags: jobFlags)
    if jobFlags & Task.isFuture != 0 {  // the future fragment, then the result
      guard let resultType = MemoryReader.readWord(at: task &+ offset &+ Fragments.futureResultType),
        let witnesses = MemoryReader.readWord(at: resultType &- UInt(MemoryLayout<UInt>.size)),
        let size = MemoryReader.read(\cleak_value_witness_table.size, of: witnesses),
        let flags = MemoryReader.read(\cleak_value_witness_table.flags, of: witnesses), size < 1 << 20
      else { return nil }
      let alignMask = UInt(flags & cleak_value_witness_alignment_mask)
      let resultOffset = (offset &+ Fragments.futureHeaderSize &+ alignMask) & ~alignMask
      offset = resultOffset &+ size &+ Fragments.futureContextPrefixSize
    } else {
      offset += Fragments.contextPrefixSize
    }
    let alignMask = Fragments.contextAlignment - 1
    return task &+ ((offset &+ alignMask) & ~alignMask)
  }

  /// Where a task's future fragment starts (or its initial context's prefix, for a task that is
  /// no future): after the task and its child and group-child fragments.
  private static func futureFragmentOffset(jobFlags: UInt32) -> UInt {
    typealias Task = ConcurrencyLayout.Task
    typealias Fragments = ConcurrencyLayout.Fragments
    var offset = ConcurrencyLayout.Symbols.knownTaskSize
    if jobFlags & Task.isChildTask != 0 { offset += Fragments.childFragmentSize }
    if jobFlags & Task.isGroupChildTask != 0 { offset += Fragments.groupChildFragmentSize }
    return offset
  }

  /// The tasks waiting for the value of the future `task` (`await task.value`), as conservative
  /// references: the future resumes them when it completes, so each one's own retain is its.
  /// The future fragment's wait queue holds the first, while the future runs, with the status
  /// in its low bits; each waiter links the next through its dependency status record.
  private func waiterReferences(ofTask task: UInt, state: State) -> [RawReference] {
    typealias Task = ConcurrencyLayout.Task
    typealias Record = ConcurrencyLayout.StatusRecord
    guard state.jobFlags & Task.isFuture != 0,
      let queue = MemoryReader.readWord(
        at: task &+ Self.futureFragmentOffset(jobFlags: state.jobFlags) &+ ConcurrencyLayout.Fragments.futureWaitQueue),
      queue & ConcurrencyLayout.Fragments.waitQueueStatusMask == ConcurrencyLayout.Fragments.waitQueueExecuting
    else { return [] }
    var references: [RawReference] = []
    var waiter = queue & ~ConcurrencyLayout.Fragments.waitQueueStatusMask
    while waiter != 0, references.count < 10_000, Self.isWaiting(waiter),
      let record = dependencyRecord(of: waiter, waitingOn: task)
    {
      references.append(RawReference(label: "waiting task", ownership: .strong, target: waiter, isConservative: true))
      waiter = MemoryReader.readWord(at: record &+ Record.nextWaitingTask) ?? 0
    }
    return references
  }

  /// The dependency status record by which `waiter` waits for the value of `task`.
  private func dependencyRecord(of waiter: UInt, waitingOn task: UInt) -> UInt? {
    Self.dependency(of: waiter).flatMap { $0.kind == ConcurrencyLayout.StatusRecord.waitingOnTask && $0.on == task ? $0.record : nil }
  }

  /// The task's dependency status record (what it waits on, or the executor it is queued on):
  /// the record, its kind and the first word of what it depends on.
  private static func dependency(of task: UInt) -> (record: UInt, kind: UInt32, on: UInt)? {
    typealias Record = ConcurrencyLayout.StatusRecord
    var record = MemoryReader.readWord(at: task &+ ConcurrencyLayout.Task.statusRecords) ?? 0
    for _ in 0..<64 where record != 0 {
      guard let flags = MemoryReader.readWord(at: record &+ Record.flags) else { return nil }
      if flags & Record.kindMask == Record.kindTaskDependency,
        let kind = MemoryReader.readWord(at: record &+ Record.dependencyKind).map({ UInt32(truncatingIfNeeded: $0) }),
        let on = MemoryReader.readWord(at: record &+ Record.dependentOn)
      {
        return (record, kind, on)
      }
      record = MemoryReader.readWord(at: record &+ Record.parent) ?? 0
    }
    return nil
  }

  /// The actor whose queue the task waits in (its executor's identity, when it is queued on an
  /// executor), as a conservative reference: the actor cannot end while it has work queued.
  private func actorQueueReference(ofTask task: UInt) -> [RawReference] {
    guard let dependency = Self.dependency(of: task), dependency.kind == ConcurrencyLayout.StatusRecord.enqueuedOnExecutor,
      dependency.on != 0
    else { return [] }
    return [RawReference(label: WaitingTask.queuedOnActorLabel, ownership: .strong, target: dependency.on, isConservative: true)]
  }

  /// The closure's edge: to the closure written in the source when the context is a thunk's
  /// whose one capture is that closure, else to the context itself.
  private func closureReference(context: UInt, entry: UInt, owned: Bool) -> RawReference {
    let ownership: Ownership = owned ? .strong : .unowned
    let captures = reflector.reflect(address: context).references
    if captures.count == 1, captures[0].function != 0, let code = asyncFunctionCode(at: captures[0].function) {
      // The thunk holds the closure's context, so that is what the task keeps alive.
      return RawReference(label: "closure", ownership: ownership, target: captures[0].target, function: code)
    }
    return RawReference(label: "closure", ownership: ownership, target: context, function: asyncFunctionCode(at: entry) ?? entry)
  }

  /// The code an async function pointer (``ConcurrencyLayout/AsyncFunctionPointer``) refers to.
  private func asyncFunctionCode(at pointer: UInt) -> UInt? {
    guard let word = MemoryReader.readWord(at: pointer) else { return nil }
    let offset = Int(Int32(truncatingIfNeeded: word))
    let contextSize = UInt32(truncatingIfNeeded: word >> ConcurrencyLayout.AsyncFunctionPointer.contextSizeShift)
    guard contextSize > 0, contextSize < 1 << 20, offset != 0 else { return nil }
    return UInt(bitPattern: Int(bitPattern: pointer) &+ offset)
  }

  /// The words of the used part of each task-allocator slab, as conservative references.
  private func frameReferences(ofTask task: UInt, slabMetadata: UInt) -> [RawReference] {
    var references: [RawReference] = []
    typealias Slab = ConcurrencyLayout.Slab
    var slab = MemoryReader.readWord(at: task &+ ConcurrencyLayout.Task.firstSlab) ?? 0
    var visited = 0
    while slab != 0, visited < 256, MemoryReader.readWord(at: slab &+ Slab.metadata) == slabMetadata {
      visited += 1
      let usedWord = MemoryReader.readWord(at: slab &+ Slab.usedWord) ?? 0
      let used = UInt(UInt32(truncatingIfNeeded: usedWord >> Slab.usedShift))
      let capacity = UInt(UInt32(truncatingIfNeeded: usedWord))
      let start = slab &+ Slab.headerSize
      guard used <= capacity, used < 1 << 24, cleak_is_readable(start, Int(used)) else { break }
      for slot in stride(from: start, to: start &+ used, by: MemoryLayout<UInt>.size) {
        guard let word = MemoryReader.readWord(at: slot) else { continue }
        let target = cleak_reference_in_word(word)
        guard target != task, cleak_is_plausible_address(target, 8) else { continue }
        references.append(RawReference(label: SuspensionPoint.frameEdgeLabel, ownership: .strong, target: target, isConservative: true))
      }
      slab = MemoryReader.readWord(at: slab &+ Slab.next) ?? 0
    }
    return references
  }
}
