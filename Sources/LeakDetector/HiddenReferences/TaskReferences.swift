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
/// The layout is that of the concurrency runtime's layout version 1 (a 208-byte task); with any
/// other runtime the reader says so and reads nothing.
struct TaskReferences {
  var reflector: RuntimeReflector

  /// The runtime's exported constants, or `nil` when they do not describe the known layout.
  struct Runtime {
    var slabMetadata: UInt

    static let current: Runtime? = {
      func value(_ symbol: String) -> UInt? {
        dlsym(nil, symbol).flatMap { MemoryReader.readWord(at: UInt(bitPattern: $0)) }
      }
      guard let version = value("_swift_concurrency_debug_internal_layout_version"), UInt32(truncatingIfNeeded: version) == 1,
        value("_swift_concurrency_debug_asyncTaskSize") == 208,
        let slabMetadata = value("_swift_concurrency_debug_asyncTaskSlabMetadata")
      else { return nil }
      return Runtime(slabMetadata: slabMetadata)
    }()
  }

  /// The task's references, and a note when the runtime's layout is not the known one.
  func references(ofTask task: UInt) -> (references: [RawReference], diagnostics: [String]) {
    guard let runtime = Runtime.current else {
      return ([], ["the concurrency runtime's task layout is not the known one (version 1, 208 bytes); what tasks hold is not read"])
    }
    guard let state = State(ofTask: task) else { return ([], []) }
    guard let closure = closure(ofTask: task, state: state) else {
      return ([], ["Task at 0x\(String(task, radix: 16)): its initial context could not be found; what it holds is not read"])
    }
    var references = [closure]
    if !state.isRunning {  // the frames and status records hold still
      references += frameReferences(ofTask: task, slabMetadata: runtime.slabMetadata) + childTaskReferences(ofTask: task)
    }
    return (references, [])
  }

  /// The code of the closure the task runs (the one written in the source, where a thunk wraps
  /// it), or `nil` for a completed task or an unknown layout: a task's "allocation site".
  func closureFunction(ofTask task: UInt) -> UInt? {
    guard Runtime.current != nil, let state = State(ofTask: task) else { return nil }
    return closure(ofTask: task, state: state).map(\.function)
  }

  /// The job flags and status of a task that has not completed.
  private struct State {
    var jobFlags: UInt32
    var isRunning: Bool

    init?(ofTask task: UInt) {
      guard let jobWord = MemoryReader.readWord(at: task &+ 32), let statusWord = MemoryReader.readWord(at: task &+ 96) else { return nil }
      let jobFlags = UInt32(truncatingIfNeeded: jobWord)
      let status = UInt32(truncatingIfNeeded: statusWord)
      guard jobFlags & 0xFF == 0, status & 0x2000 == 0 else { return nil }  // not a task, or completed
      self.jobFlags = jobFlags
      isRunning = status & 0x800 != 0
    }
  }

  /// The edge to the task's closure, from its initial context's prefix.
  private func closure(ofTask task: UInt, state: State) -> RawReference? {
    guard let (context, entry) = closureContextAndEntry(ofTask: task, state: state) else { return nil }
    // An `async let` child borrows its closure from the parent's frame.
    let isAsyncLetChild = state.jobFlags & (1 << 24) != 0 && state.jobFlags & (1 << 26) == 0
    return closureReference(context: context, entry: entry, owned: !isAsyncLetChild)
  }

  /// The context and the entry of the closure the task was created with, as its initial
  /// context's prefix keeps them (for `Task { }`, a thunk's).
  private func closureContextAndEntry(ofTask task: UInt, state: State) -> (context: UInt, entry: UInt)? {
    guard let initialContext = initialContext(ofTask: task, jobFlags: state.jobFlags),
      MemoryReader.readWord(at: initialContext) == 0,  // the initial context has no parent: the layout checks out
      let context = MemoryReader.readWord(at: initialContext &- 16), context != 0
    else { return nil }
    return (context, MemoryReader.readWord(at: initialContext &- 24) ?? 0)
  }

  /// The children a task group of the task keeps (heap tasks the group retains until their
  /// results are taken), found through the task's status records (+104, linked by their parent
  /// at +8): a task group's record (kind 2) has its first child at +16; each child links the
  /// next in its child fragment (+216). `async let` children live in the task's own frames, and
  /// are read there.
  private func childTaskReferences(ofTask task: UInt) -> [RawReference] {
    var references: [RawReference] = []
    var record = MemoryReader.readWord(at: task &+ 104) ?? 0
    var walked = 0
    while record != 0, walked < 64, let flags = MemoryReader.readWord(at: record) {
      walked += 1
      if flags & 0xFF == 2 {
        var child = MemoryReader.readWord(at: record &+ 16) ?? 0
        var children = 0
        while child != 0, children < 100_000, Self.isTask(child), let childFlags = MemoryReader.readWord(at: child &+ 32),
          childFlags & (1 << 26) != 0  // a group child
        {
          children += 1
          references.append(RawReference(label: "child task", ownership: .strong, target: child))
          child = MemoryReader.readWord(at: child &+ 216) ?? 0
        }
      }
      record = MemoryReader.readWord(at: record &+ 8) ?? 0
    }
    return references
  }

  /// Whether `address` is a task object: metadata of the task kind, job kind 0 in the job flags.
  static func isTask(_ address: UInt) -> Bool {
    guard address != 0, address & 15 == 0, let metadata = MemoryReader.readWord(at: address), metadata & 7 == 0,
      let kindWord = MemoryReader.readWord(at: metadata), HeapObjectKind.of(kindWord: kindWord) == .task,
      let jobFlags = MemoryReader.readWord(at: address &+ 32)
    else { return false }
    return jobFlags & 0xFF == 0
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
      let token = MemoryReader.readWord(at: context &+ 16), token & 7 == 0, let word = MemoryReader.readWord(at: token)
    else { return nil }
    if (1...3).contains(word) { return .over }
    return word & 3 == 0 && Self.isTask(word) ? .sleeper(word) : nil
  }

  /// Where the task's initial async context starts: after the task object (208 bytes), its child
  /// and group-child fragments, and its future fragment with the result's storage.
  private func initialContext(ofTask task: UInt, jobFlags: UInt32) -> UInt? {
    var offset: UInt = 208
    if jobFlags & (1 << 24) != 0 { offset += 16 }  // child
    if jobFlags & (1 << 26) != 0 { offset += 8 }  // group child
    if jobFlags & (1 << 25) != 0 {  // future: wait queue, result type, error, then the result
      guard let resultType = MemoryReader.readWord(at: task &+ offset &+ 8), let witnesses = MemoryReader.readWord(at: resultType &- 8),
        let size = MemoryReader.readWord(at: witnesses &+ 64), let flags = MemoryReader.readWord(at: witnesses &+ 80), size < 1 << 20
      else { return nil }
      let alignMask = flags & 0xFF
      let resultOffset = (offset &+ 24 &+ alignMask) & ~alignMask
      offset = resultOffset &+ size &+ 32
    } else {
      offset += 24
    }
    return task &+ ((offset &+ 15) & ~15)
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

  /// The code an async function pointer (a 32-bit offset to the function, then its context
  /// size) refers to.
  private func asyncFunctionCode(at pointer: UInt) -> UInt? {
    guard let word = MemoryReader.readWord(at: pointer) else { return nil }
    let offset = Int(Int32(truncatingIfNeeded: word))
    let contextSize = UInt32(truncatingIfNeeded: word >> 32)
    guard contextSize > 0, contextSize < 1 << 20, offset != 0 else { return nil }
    return UInt(bitPattern: Int(bitPattern: pointer) &+ offset)
  }

  /// The words of the used part of each task-allocator slab, as conservative references.
  private func frameReferences(ofTask task: UInt, slabMetadata: UInt) -> [RawReference] {
    var references: [RawReference] = []
    var slab = MemoryReader.readWord(at: task &+ 120) ?? 0
    var visited = 0
    while slab != 0, visited < 256, MemoryReader.readWord(at: slab) == slabMetadata {
      visited += 1
      let used = UInt(UInt32(truncatingIfNeeded: (MemoryReader.readWord(at: slab &+ 16) ?? 0) >> 32))
      guard used < 1 << 24, cleak_is_readable(slab &+ 32, Int(used)) else { break }
      for slot in stride(from: slab &+ 32, to: slab &+ 32 &+ used, by: 8) {
        guard let word = MemoryReader.readWord(at: slot) else { continue }
        let target = cleak_decode_reference_word(word)
        guard target != task, target & 7 == 0, target >= 0x10000 else { continue }
        references.append(RawReference(label: "async frame", ownership: .strong, target: target, isConservative: true))
      }
      slab = MemoryReader.readWord(at: slab &+ 8) ?? 0
    }
    return references
  }
}
