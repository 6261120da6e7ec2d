import CLeakRuntime
import HeapGraph

#if canImport(Glibc)
  import Glibc
#endif

/// Memory outside the Swift heap whose words may hold references that keep objects alive: the
/// global and static data of every loaded image, each thread's live stack (from its stack
/// pointer up), the calling thread's thread-local storage, and every thread's pthread-specific
/// values. A whole-process capture scans these conservatively (``WalkedHeap/rooted(in:)``), as
/// LeakSanitizer scans its roots.
///
/// The regions are found in the process being captured, before its capture child is forked:
/// the child has one thread, finding images takes the dynamic loader's lock, and glibc clears
/// the other threads' pthread-specific values in a forked child (so they are copied here).
package struct RootRegion: Sendable, Hashable {
  package var start: UInt
  package var end: UInt
  var kind: RootKind
  /// What holds the words (`main thread`); `nil` for global data, whose words are named by the
  /// variable that covers them.
  var label: String?
  /// The region's words as they were when the regions were found, for memory a capture child
  /// sees changed (pthread-specific values); `nil` when the child scans the memory itself.
  var copiedWords: [UInt]? = nil

  /// The root regions of this process, with `callerStackPointer` the stack pointer of the
  /// calling thread at the frame whose callers are to be scanned (the capture's own frames
  /// below it hold no references of the program). `findsUnbalancedRetains` is false when the
  /// regions may miss a word that holds an object: a thread was running (its stack was not
  /// scanned, and its registers may hold what nothing else does), or the pthread-specific values
  /// of other threads could not be read.
  static func ofThisProcess(callerStackPointer: UInt)
    -> (regions: [RootRegion], diagnostics: [CaptureDiagnostic], findsUnbalancedRetains: Bool)
  {
    var regions = globalData()
    var diagnostics: [CaptureDiagnostic] = []
    var findsUnbalancedRetains = true
    let mappings = Self.mappings()
    let process = getpid()
    let current = cleak_thread_id()
    func name(_ thread: pid_t) -> String { thread == process ? "main thread" : "thread \(thread)" }
    func stack(from pointer: UInt, thread: pid_t) {
      guard let mapping = mappings.first(where: { $0.start <= pointer && pointer < $0.end }) else { return }
      // The red zone below the stack pointer may hold a leaf function's locals.
      regions.append(
        RootRegion(start: max(mapping.start, pointer &- cleak_stack_red_zone), end: mapping.end, kind: .stack, label: name(thread)))
      regions += threadSpecificValues(of: thread, named: name(thread), stackEnd: mapping.end)
      regions += dynamicThreadLocalStorage(of: thread, named: name(thread), stackEnd: mapping.end)
    }
    stack(from: callerStackPointer, thread: current)
    var local = cleak_memory_range()
    if cleak_static_tls_of_current_thread(&local) != 0 {
      regions.append(RootRegion(start: local.start, end: local.end, kind: .threadLocal, label: name(current)))
    }
    let others = threads().filter { $0 != current }
    for thread in others {
      if let pointer = stackPointer(of: thread) {
        stack(from: pointer, thread: thread)
      } else {
        findsUnbalancedRetains = false
        diagnostics.append(.threadNotScanned(name: name(thread)))
      }
    }
    // A forked child sees no value of another thread's keys: without them, a retain such a value
    // accounts for would look unbalanced.
    if !others.isEmpty && !cleak_thread_specific_layout_holds() {
      findsUnbalancedRetains = false
      diagnostics.append(.threadSpecificValuesNotRead())
    }
    return (regions, diagnostics, findsUnbalancedRetains)
  }

  /// The pthread-specific values of `thread` (named `name`), one region of one copied word per
  /// key, labelled `thread 1234 pthread key 5`: read from the thread's descriptor, which glibc
  /// keeps at the top of the stacks it allocates (ending at `stackEnd`). None for a thread on a
  /// stack of the program's own (glibc leaves its values in place in a forked child, where the
  /// scan of memory finds them) or when the descriptor's layout is not the one expected.
  private static func threadSpecificValues(of thread: pid_t, named name: String, stackEnd: UInt) -> [RootRegion] {
    var values = [cleak_thread_specific_value](repeating: cleak_thread_specific_value(), count: 64)
    var count = cleak_thread_specific_values(thread, stackEnd, &values, values.count)
    if count > values.count {
      values = [cleak_thread_specific_value](repeating: cleak_thread_specific_value(), count: count)
      count = min(cleak_thread_specific_values(thread, stackEnd, &values, values.count), values.count)
    }
    return values.prefix(max(count, 0)).map {
      RootRegion(
        start: $0.slot, end: $0.slot + UInt(MemoryLayout<UInt>.size), kind: .threadLocal,
        label: "\(name) pthread key \($0.key)", copiedWords: [$0.value])
    }
  }

  /// The dynamic TLS blocks of `thread` (named `name`; found as ``threadSpecificValues(of:named:stackEnd:)``
  /// finds its descriptor), the `__thread` variables of images loaded with `dlopen`, labelled
  /// `thread 1234 dynamic TLS of libname.so`. A forked child keeps them: it scans them itself.
  private static func dynamicThreadLocalStorage(of thread: pid_t, named name: String, stackEnd: UInt) -> [RootRegion] {
    var blocks = [cleak_dynamic_tls_block](repeating: cleak_dynamic_tls_block(), count: 64)
    let count = min(cleak_dynamic_tls_blocks(thread, stackEnd, &blocks, blocks.count), blocks.count)
    return blocks.prefix(max(count, 0)).map { block in
      let image = block.image.map { String(cString: $0).split(separator: "/").last.map(String.init) ?? "" } ?? ""
      return RootRegion(start: block.start, end: block.end, kind: .threadLocal, label: "\(name) dynamic TLS of \(image)")
    }
  }

  /// The global and static data of every loaded image: its writable segments (the agent's own
  /// excepted). Its words that refer to an object are named by the variable that holds them.
  package static func globalData() -> [RootRegion] {
    var segments = [cleak_memory_range](repeating: cleak_memory_range(), count: 1024)
    let segmentCount = min(cleak_writable_image_segments(&segments, segments.count), segments.count)
    return segments.prefix(segmentCount).map { RootRegion(start: $0.start, end: $0.end, kind: .global, label: nil) }
  }

  /// A small file of /proc, whole.
  private static func text(of path: String) -> String? {
    (try? FileBytes.read(path)).map { String(decoding: $0, as: UTF8.self) }
  }

  /// The ids of this process's threads.
  private static func threads() -> [pid_t] {
    guard let directory = opendir("/proc/self/task") else { return [] }
    defer { closedir(directory) }
    var threads: [pid_t] = []
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
      if let thread = pid_t(name) { threads.append(thread) }
    }
    return threads
  }

  /// The stack pointer of a thread blocked in the kernel, from `/proc/self/task/TID/syscall`
  /// (`NR args… sp pc`, or `-1 sp pc` when blocked outside a system call); `nil` while it runs.
  private static func stackPointer(of thread: pid_t) -> UInt? {
    // A running thread is often blocked a moment later: ask a few times.
    for _ in 0..<20 {
      guard let text = text(of: "/proc/self/task/\(thread)/syscall") else { return nil }
      let fields = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
      if fields.count >= 3, fields[0] != "running", let pointer = UInt(fields[fields.count - 2].dropFirst(2), radix: 16) {
        return pointer
      }
      usleep(500)
    }
    return nil
  }

  /// The readable and writable mappings of this process.
  private static func mappings() -> [(start: UInt, end: UInt)] {
    guard let text = text(of: "/proc/self/maps") else { return [] }
    return ProcessMapping.mappings(inMaps: text).filter { $0.isReadable && $0.isWritable }.map { (UInt($0.start), UInt($0.end)) }
  }
}
