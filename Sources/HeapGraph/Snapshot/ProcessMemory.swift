/// The memory of the captured process at the instant of a snapshot, as three views: the Swift
/// objects the capture saw, glibc malloc's (`mallinfo2`), and the kernel's (`/proc/self/status`).
///
/// Side by side they tell whether a process that grows grows in Swift objects or elsewhere: RSS
/// that grows while the Swift objects stay and malloc's free bytes in its arenas grow is memory
/// malloc keeps after it was freed (fragmentation), not a Swift leak. Every field is optional,
/// because a producer may know some views and not others; sizes are in bytes.
///
/// ```swift
/// let memory = ProcessMemory(swiftObjectBytes: 12 << 20, mallocFreeInArenas: 80 << 20, residentBytes: 412 << 20)
/// print("\(memory.mallocFreeInArenas! * 100 / memory.residentBytes!)% of RSS is free in malloc's arenas")
/// ```
/// ```text
/// 19% of RSS is free in malloc's arenas
/// ```
public struct ProcessMemory: Sendable, Hashable {
  /// The Swift objects in the snapshot: the live objects the capture saw.
  public var swiftObjectCount: Int?
  /// The allocation sizes of those objects, summed (objects of unknown size count nothing).
  public var swiftObjectBytes: Int?
  /// What malloc has handed out and not got back: `uordblks + hblkhd` of `mallinfo2()`.
  public var mallocInUse: Int?
  /// Free bytes malloc keeps in its arenas, not returned to the system: `fordblks`.
  public var mallocFreeInArenas: Int?
  /// The bytes malloc has taken from the system for its arenas, in use or free: `arena`.
  public var mallocArenaBytes: Int?
  /// The number of malloc arenas (the main one and one per thread that needed its own).
  public var mallocArenas: Int?
  /// The bytes of blocks malloc gave their own mappings (large allocations): `hblkhd`.
  public var mallocMmapped: Int?
  /// The resident set: the process's memory in RAM (`VmRSS`).
  public var residentBytes: Int?
  /// The anonymous part of the resident set: heaps, stacks, private mappings (`RssAnon`).
  public var anonymousBytes: Int?
  /// The file-backed part of the resident set: code and mapped files (`RssFile`).
  public var fileBackedBytes: Int?
  /// The process's address space, mapped or reserved (`VmSize`).
  public var virtualBytes: Int?

  public init(
    swiftObjectCount: Int? = nil, swiftObjectBytes: Int? = nil, mallocInUse: Int? = nil, mallocFreeInArenas: Int? = nil,
    mallocArenaBytes: Int? = nil, mallocArenas: Int? = nil, mallocMmapped: Int? = nil, residentBytes: Int? = nil,
    anonymousBytes: Int? = nil, fileBackedBytes: Int? = nil, virtualBytes: Int? = nil
  ) {
    self.swiftObjectCount = swiftObjectCount
    self.swiftObjectBytes = swiftObjectBytes
    self.mallocInUse = mallocInUse
    self.mallocFreeInArenas = mallocFreeInArenas
    self.mallocArenaBytes = mallocArenaBytes
    self.mallocArenas = mallocArenas
    self.mallocMmapped = mallocMmapped
    self.residentBytes = residentBytes
    self.anonymousBytes = anonymousBytes
    self.fileBackedBytes = fileBackedBytes
    self.virtualBytes = virtualBytes
  }

  /// Records the Swift objects of a capture: the objects of `snapshot`, and their known sizes summed.
  package mutating func recordSwiftObjects(of snapshot: HeapSnapshot) {
    swiftObjectCount = snapshot.objectCount
    swiftObjectBytes = snapshot.objectSizes.reduce(0) { $0 + max(Int($1), 0) }
  }

  /// Every field with its name in the snapshot and report formats, in the order they are
  /// written: the one list that the JSON and binary encodings and the reports follow.
  package static let fields: [(name: StaticString, value: WritableKeyPath<ProcessMemory, Int?> & Sendable)] = [
    ("swiftObjectCount", \.swiftObjectCount),
    ("swiftObjectBytes", \.swiftObjectBytes),
    ("mallocInUse", \.mallocInUse),
    ("mallocFreeInArenas", \.mallocFreeInArenas),
    ("mallocArenaBytes", \.mallocArenaBytes),
    ("mallocArenas", \.mallocArenas),
    ("mallocMmapped", \.mallocMmapped),
    ("residentBytes", \.residentBytes),
    ("anonymousBytes", \.anonymousBytes),
    ("fileBackedBytes", \.fileBackedBytes),
    ("virtualBytes", \.virtualBytes),
  ]
}
