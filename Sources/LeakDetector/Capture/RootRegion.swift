import CLeakRuntime
import HeapGraph

#if canImport(Glibc)
  import Glibc
#endif

/// Memory outside the Swift heap whose words may hold references that keep objects alive: the
/// global and static data of every loaded image, each thread's live stack (from its stack
/// pointer up), and the calling thread's thread-local storage. A whole-process capture scans
/// these conservatively (``WalkedHeap/rooted(in:)``), as LeakSanitizer scans its roots.
///
/// The regions are found in the process being captured, before its capture child is forked:
/// the child has one thread, and finding images takes the dynamic loader's lock.
package struct RootRegion: Sendable, Hashable {
  package var start: UInt
  package var end: UInt
  var kind: RootKind
  /// What holds the words (`main thread`); `nil` for global data, whose words are named by the
  /// variable that covers them.
  var label: String?

  /// The root regions of this process, with `callerStackPointer` the stack pointer of the
  /// calling thread at the frame whose callers are to be scanned (the capture's own frames
  /// below it hold no references of the program). `everyThreadBlocked` is false when a thread
  /// was running: its stack was not scanned, and its registers may hold what nothing else does.
  static func ofThisProcess(callerStackPointer: UInt) -> (regions: [RootRegion], diagnostics: [CaptureDiagnostic], everyThreadBlocked: Bool) {
    var regions = globalData()
    var diagnostics: [CaptureDiagnostic] = []
    var everyThreadBlocked = true
    let mappings = Self.mappings()
    let process = getpid()
    let current = cleak_thread_id()
    func name(_ thread: pid_t) -> String { thread == process ? "main thread" : "thread \(thread)" }
    func stack(from pointer: UInt, thread: pid_t) {
      guard let mapping = mappings.first(where: { $0.start <= pointer && pointer < $0.end }) else { return }
      // The red zone below the stack pointer may hold a leaf function's locals.
      regions.append(RootRegion(start: max(mapping.start, pointer &- cleak_stack_red_zone), end: mapping.end, kind: .stack, label: name(thread)))
    }
    stack(from: callerStackPointer, thread: current)
    var local = cleak_memory_range()
    if cleak_static_tls_of_current_thread(&local) != 0 {
      regions.append(RootRegion(start: local.start, end: local.end, kind: .threadLocal, label: name(current)))
    }
    for thread in threads() where thread != current {
      if let pointer = stackPointer(of: thread) {
        stack(from: pointer, thread: thread)
      } else {
        everyThreadBlocked = false
        diagnostics.append(.threadNotScanned(name: name(thread)))
      }
    }
    return (regions, diagnostics, everyThreadBlocked)
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
    return text.split(separator: "\n").compactMap { line in
      let fields = line.split(separator: " ", maxSplits: 2)
      guard fields.count >= 2, fields[1].hasPrefix("rw") else { return nil }
      let bounds = fields[0].split(separator: "-")
      guard bounds.count == 2, let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16) else { return nil }
      return (start, end)
    }
  }
}
