import CProcessImage

/// The memory, threads and mappings of another process: read from it while it runs (every
/// thread stopped for the copy, with ptrace) or from its ELF core file.
///
/// An engine reads the target's memory through it by address, as if it were its own:
///
/// ```swift
/// let image = try ProcessImage.capture(processID: pid)  // or ProcessImage.read(coreFile: "core.1234")
/// for thread in image.threads {
///   if let word = image.readWord(at: thread.stackPointer) { print(String(word, radix: 16)) }
/// }
/// ```
/// ```text
/// 7f3a1c0021a0
/// ```
///
/// The image owns the memory its segments' bytes live in (copies, mappings of the core file or
/// of the mapped files) and releases it when it goes away.
public final class ProcessImage: @unchecked Sendable {
  /// Where an image was read from.
  public enum Origin: Sendable, Equatable {
    /// A running process, by its id.
    case process(Int32)
    /// A core file, by its path.
    case coreFile(String)
  }

  public let origin: Origin
  public let processID: Int32
  /// The executable's path: `/proc/PID/exe`'s target; for a core, the file mapped at the entry
  /// point (`NT_FILE`, `AT_ENTRY`), else `AT_EXECFN`, else `NT_PRPSINFO`'s short name.
  public let executablePath: String?
  /// The arguments: `/proc/PID/cmdline`; for a core, `NT_PRPSINFO`'s `pr_psargs` (the first 80
  /// bytes of the command line) split on spaces.
  public let commandLine: [String]
  /// The readable ranges of the address space, sorted by start, not overlapping.
  public let segments: [MemorySegment]
  /// Every thread, the main thread (whose id is the process's) first.
  public let threads: [ThreadRegisters]
  /// For a live capture, how long the target was stopped: from its first thread stopped to its
  /// last resumed. `nil` for a core.
  public let pauseDuration: Duration?
  /// What could not be read, in plain words.
  public let diagnostics: [String]

  /// The mappings this image made (copies, files), unmapped when it goes away.
  private let ownedMappings: [UnsafeRawBufferPointer]

  init(
    origin: Origin, processID: Int32, executablePath: String?, commandLine: [String], segments: [MemorySegment],
    threads: [ThreadRegisters], pauseDuration: Duration?, diagnostics: [String], ownedMappings: [UnsafeRawBufferPointer]
  ) {
    let (ordered, overlaps) = Self.ordered(segments)
    self.origin = origin
    self.processID = processID
    self.executablePath = executablePath
    self.commandLine = commandLine
    self.segments = ordered
    self.threads = threads.filter { $0.threadID == processID } + threads.filter { $0.threadID != processID }
    self.pauseDuration = pauseDuration
    self.diagnostics = diagnostics + overlaps
    self.ownedMappings = ownedMappings
  }

  deinit {
    for mapping in ownedMappings where mapping.count > 0 {
      cpi_unmap(mapping.baseAddress, mapping.count)
    }
  }

  /// Copies `buffer.count` bytes at `address` of the target into `buffer`; returns how many were
  /// copied from the start (it stops at the first byte that is not available: outside every
  /// segment, or in one whose bytes could not be read).
  ///
  /// ```swift
  /// var pattern = [UInt8](repeating: 0, count: 64)
  /// let copied = pattern.withUnsafeMutableBytes { image.read(into: $0, at: bufferAddress) }
  /// ```
  public func read(into buffer: UnsafeMutableRawBufferPointer, at address: UInt) -> Int {
    var copied = 0
    var index = segmentIndex(containing: address)
    while copied < buffer.count, let current = index {
      let segment = segments[current]
      let position = address &+ UInt(copied)
      guard let contents = segment.contents, segment.contains(position) else { break }
      let offset = Int(position - segment.start)
      let length = min(buffer.count - copied, contents.count - offset)
      UnsafeMutableRawBufferPointer(rebasing: buffer[copied..<(copied + length)])
        .copyMemory(from: UnsafeRawBufferPointer(rebasing: contents[offset..<(offset + length)]))
      copied += length
      // A read that runs on into the next segment, when it starts where this one ends.
      index = current + 1 < segments.count && segments[current + 1].start == segment.end ? current + 1 : nil
    }
    return copied
  }

  /// The 8-byte word at `address` (native byte order), or `nil` when any of its bytes is not
  /// available.
  public func readWord(at address: UInt) -> UInt? {
    var word: UInt = 0
    let copied = withUnsafeMutableBytes(of: &word) { read(into: $0, at: address) }
    return copied == MemoryLayout<UInt>.size ? word : nil
  }

  /// The segment that contains `address`, if any.
  public func segment(containing address: UInt) -> MemorySegment? {
    segmentIndex(containing: address).map { segments[$0] }
  }

  /// The index in ``segments`` of the one that contains `address`: binary search.
  private func segmentIndex(containing address: UInt) -> Int? {
    var low = 0
    var high = segments.count
    while low < high {
      let middle = (low + high) / 2
      if segments[middle].end <= address {
        low = middle + 1
      } else {
        high = middle
      }
    }
    return low < segments.count && segments[low].contains(address) ? low : nil
  }

  /// `segments` sorted by start, without those that overlap one before them (only a malformed
  /// core has any), and what was left out.
  static func ordered(_ segments: [MemorySegment]) -> ([MemorySegment], [String]) {
    var ordered: [MemorySegment] = []
    var dropped: [String] = []
    for segment in segments.sorted(by: { $0.start < $1.start }) {
      if let last = ordered.last, segment.start < last.end {
        dropped.append(
          "segment 0x\(String(segment.start, radix: 16))-0x\(String(segment.end, radix: 16)) overlaps the one before it; left out")
      } else {
        ordered.append(segment)
      }
    }
    return (ordered, dropped)
  }
}
