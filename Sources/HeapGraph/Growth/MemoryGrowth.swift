/// Which memory grew over a series of snapshots, in one line: the kernel's view (RSS), malloc's
/// (in use, free in its arenas) and the Swift objects'. The question behind most "my process
/// grows" reports on Linux is whether it is Swift at all.
///
/// ```text
/// RSS +200 MiB, Swift objects +0 bytes, malloc in use +16 KiB, malloc free in arenas +198 MiB:
/// fragmentation, not a Swift leak: freed memory stays in malloc's arenas (try MALLOC_ARENA_MAX=2, malloc_trim, or jemalloc)
/// ```
public struct MemoryGrowth: Sendable, Hashable {
  /// What grew most.
  public enum Cause: String, Sendable, Hashable {
    /// Resident memory did not grow much: nothing to explain.
    case steady
    /// Live Swift objects account for most of the growth: the paths above say which.
    case swiftObjects
    /// Memory malloc hands out grew more than the Swift objects: C buffers, byte buffers,
    /// Foundation data, collection storage.
    case outsideSwiftObjects
    /// Freed memory kept in malloc's arenas: fragmentation.
    case freeInArenas
    /// Something else: file-backed mappings, stacks, other allocators.
    case other
  }

  /// The first snapshot's memory and the last's.
  public var first: ProcessMemory
  public var last: ProcessMemory
  public var cause: Cause

  /// The growth from the first of `memories` to the last, when both record resident memory.
  public init?(_ memories: [ProcessMemory?]) {
    guard let first = memories.first ?? nil, let last = memories.last ?? nil, let before = first.residentBytes,
      let after = last.residentBytes
    else { return nil }
    self.first = first
    self.last = last
    let resident = after - before
    func delta(_ field: KeyPath<ProcessMemory, Int?>) -> Int { (last[keyPath: field] ?? 0) - (first[keyPath: field] ?? 0) }
    // Less than 4 MiB and 5% of the first snapshot's: within what a process does at rest.
    if resident < max(4 << 20, before / 20) {
      cause = .steady
    } else if delta(\.swiftObjectBytes) * 2 >= resident {
      cause = .swiftObjects
    } else if (delta(\.mallocInUse) + delta(\.mallocFreeInArenas)) * 2 >= resident {
      // Malloc's memory: more of it free than in use outside Swift objects is fragmentation.
      cause = delta(\.mallocFreeInArenas) >= delta(\.mallocInUse) - delta(\.swiftObjectBytes) ? .freeInArenas : .outsideSwiftObjects
    } else {
      cause = .other
    }
  }

  /// The deltas, then what they mean.
  public var summary: String {
    func change(_ field: KeyPath<ProcessMemory, Int?>, _ name: String) -> String? {
      guard let after = last[keyPath: field], let before = first[keyPath: field] else { return nil }
      let delta = after - before
      return "\(name) \(delta >= 0 ? "+" : "")\(ProcessMemory.describe(bytes: delta))"
    }
    let changes = [
      change(\.residentBytes, "RSS"), change(\.swiftObjectBytes, "Swift objects"), change(\.mallocInUse, "malloc in use"),
      change(\.mallocFreeInArenas, "malloc free in arenas"),
    ].compactMap { $0 }.joined(separator: ", ")
    return changes + ": " + meaning
  }

  /// What the cause means for the reader.
  public var meaning: String {
    switch cause {
    case .steady: "resident memory is steady"
    case .swiftObjects: "Swift objects account for most of it (what grew is listed above)"
    case .outsideSwiftObjects:
      "memory outside Swift objects grows (C buffers, byte buffers, Foundation data, collection storage): malloc in use grows more than the Swift objects"
    case .freeInArenas:
      "fragmentation, not a Swift leak: freed memory stays in malloc's arenas (try MALLOC_ARENA_MAX=2, malloc_trim, or jemalloc)"
    case .other: "neither Swift objects nor malloc account for it (file-backed mappings, thread stacks, another allocator)"
    }
  }
}
