import CLeakRuntime
import HeapGraph

#if canImport(Glibc)
  import Glibc
#endif

/// What a task of Swift concurrency that has not completed holds: the closure it runs, and what
/// its suspended async frames hold.
///
/// The runtime keeps the closure's context (+1, until the task completes) in the prefix of the
/// task's initial async context, which follows the task object and its fragments. For
/// `Task { … }` that context is a thunk's, whose one capture is the closure written in the
/// source; the edge goes to that closure, named by its function. Async frames live in the task
/// allocator's slabs, chained from the task; only the used part of each slab is read. Frame
/// words have no types, so they are conservative references: the capture keeps one only where
/// the target's reference count has a retain no precise reference explains (a stale slot of a
/// released `self` is dropped). A completed task holds nothing; a running task's frames change
/// under the reader, so only its closure is read.
///
/// ```text
/// Task.closure -> closure #1 in LeakDetectorTests.TaskOwner.start() (strong)
/// Task.async frame -> LeakDetectorTests.TaskOwner (strong, conservative)
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
    guard let jobWord = MemoryReader.readWord(at: task &+ 32), let statusWord = MemoryReader.readWord(at: task &+ 96) else { return ([], []) }
    let jobFlags = UInt32(truncatingIfNeeded: jobWord)
    let status = UInt32(truncatingIfNeeded: statusWord)
    guard jobFlags & 0xFF == 0, status & 0x2000 == 0 else { return ([], []) }  // not a task, or completed
    guard let initialContext = initialContext(ofTask: task, jobFlags: jobFlags),
      MemoryReader.readWord(at: initialContext) == 0,  // the initial context has no parent: the layout checks out
      let context = MemoryReader.readWord(at: initialContext &- 16), context != 0
    else { return ([], ["Task at 0x\(String(task, radix: 16)): its initial context could not be found; what it holds is not read"]) }
    // An `async let` child borrows its closure from the parent's frame.
    let isAsyncLetChild = jobFlags & (1 << 24) != 0 && jobFlags & (1 << 26) == 0
    var references = [closureReference(context: context, entry: MemoryReader.readWord(at: initialContext &- 24) ?? 0, owned: !isAsyncLetChild)]
    if status & 0x800 == 0 {  // not running: the frames hold still
      references += frameReferences(ofTask: task, slabMetadata: runtime.slabMetadata)
    }
    return (references, [])
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
