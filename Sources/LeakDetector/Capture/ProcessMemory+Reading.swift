import CLeakRuntime
import HeapGraph

#if canImport(Glibc)
  import Glibc
#endif

extension ProcessMemory {
  /// The kernel's and malloc's views of this process's memory now; the Swift objects are
  /// recorded from the capture's snapshot (``recordSwiftObjects(of:)``).
  ///
  /// Read in the process being captured, before its capture child is forked: the child's RSS
  /// and malloc state are its own. Nothing here allocates while glibc holds one of its locks:
  /// the status file is read without Foundation, with `open` and `read` into a buffer on the
  /// stack, and `malloc_info` releases each arena's lock before it writes that arena's entry.
  package static func readNow() -> ProcessMemory {
    var memory = ProcessMemory()
    if let status = procStatusText() { memory.recordKernelView(procStatus: status) }
    // The totals before the arenas' XML, whose buffer they would count.
    var totals = cleak_malloc_totals()
    cleak_malloc_totals_now(&totals)
    memory.recordMallocView(
      arena: Int(totals.arena), inUseInArenas: Int(totals.uordblks), freeInArenas: Int(totals.fordblks),
      mmapped: Int(totals.hblkhd))
    var length = 0
    if let text = cleak_malloc_info_text(&length) {
      memory.mallocArenas = arenaCount(mallocInfo: String(decoding: UnsafeRawBufferPointer(start: text, count: length), as: UTF8.self))
      free(text)
    }
    return memory
  }

  /// Records the kernel's view from the text of `/proc/self/status`: `VmRSS`, `RssAnon`,
  /// `RssFile` and `VmSize`, which it gives in kB (KiB). A field it lacks (an older kernel has
  /// no `RssAnon`) stays unknown.
  package mutating func recordKernelView(procStatus text: String) {
    let fields: [(String, WritableKeyPath<ProcessMemory, Int?>)] = [
      ("VmRSS", \.residentBytes), ("RssAnon", \.anonymousBytes), ("RssFile", \.fileBackedBytes), ("VmSize", \.virtualBytes),
    ]
    for line in text.split(separator: "\n") {
      guard let colon = line.firstIndex(of: ":"), let field = fields.first(where: { line[..<colon] == $0.0 }) else { continue }
      let words = line[line.index(after: colon)...].split(whereSeparator: { $0 == " " || $0 == "\t" })
      guard let value = words.first.flatMap({ Int($0) }), value >= 0, words.dropFirst().first == "kB" else { continue }
      self[keyPath: field.1] = value * 1024
    }
  }

  /// Records malloc's view from the fields of glibc's `mallinfo2()`: `arena`, `uordblks`,
  /// `fordblks`, `hblkhd`. In use is what the arenas hand out plus the blocks in their own
  /// mappings, which malloc hands out too. All zeros mean that another allocator replaced
  /// glibc's (a sanitizer's, jemalloc): malloc's view is then unknown, not empty.
  package mutating func recordMallocView(arena: Int, inUseInArenas: Int, freeInArenas: Int, mmapped: Int) {
    guard arena != 0 || inUseInArenas != 0 || freeInArenas != 0 || mmapped != 0 else { return }
    mallocArenaBytes = arena
    mallocInUse = inUseInArenas + mmapped
    mallocFreeInArenas = freeInArenas
    mallocMmapped = mmapped
  }

  /// The number of arenas in the XML of glibc's `malloc_info`: its `<heap nr="…">` entries;
  /// `nil` when the text is not that XML.
  package static func arenaCount(mallocInfo text: String) -> Int? {
    guard text.hasPrefix("<malloc version=") else { return nil }
    return text.split(separator: "\n").count(where: { $0.hasPrefix("<heap nr=\"") })
  }

  /// The text of `/proc/self/status`, read with `open` and `read` into a buffer on the stack
  /// (the file is about 1.5 KB; a longer one is cut at 8 KB, after the fields read here).
  private static func procStatusText() -> String? {
    let descriptor = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 8192) { buffer -> String? in
      var filled = 0
      while filled < buffer.count {
        let count = read(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { break }
        filled += count
      }
      return filled == 0 ? nil : String(decoding: UnsafeBufferPointer(rebasing: buffer[..<filled]), as: UTF8.self)
    }
  }
}
