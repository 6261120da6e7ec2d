import CLeakRuntime
import HeapGraph

/// The memory of another process as a capture reads it: a stopped process's copy, or a core
/// file's. Its segments' bytes lie in this process (copied, or mapped from the core and the
/// images' files); its threads' registers are roots. ``install()`` makes every read of the capture
/// code read it, so that the one capture engine (``HeapWalk`` and the phases after it) reads a
/// memory image exactly as it reads a live process.
///
/// ```swift
/// let image = MemoryImage(processID: 4242, arguments: ["server"], segments: segments, threads: threads)
/// image.install()
/// let snapshot = image.snapshot()
/// ```
package struct MemoryImage: @unchecked Sendable {
  /// A mapping of the process: its address range, where its bytes are here, what it maps.
  package struct Segment: @unchecked Sendable {
    package var start: UInt
    package var end: UInt
    /// The segment's bytes in this process, `end - start` of them; `nil` when unavailable.
    package var bytes: UnsafeRawPointer?
    package var isWritable: Bool
    package var isExecutable: Bool
    /// What the process mapped there: a file's path, a pseudo-path (`[heap]`, `[stack]`), or
    /// `nil` for anonymous memory.
    package var path: String?
    /// Where that file can be read here (its path, or the copy found for a moved binary); `nil`
    /// when it cannot.
    package var localFile: String?
    package var fileOffset: UInt64
    /// Whether `bytes` are this process's anonymous memory into which only the pages that held
    /// data were copied (a running process's writable memory): a page never touched here is zeros.
    package var isSparseCopy: Bool

    package init(
      start: UInt, end: UInt, bytes: UnsafeRawPointer?, isWritable: Bool, isExecutable: Bool, path: String?, localFile: String?,
      fileOffset: UInt64, isSparseCopy: Bool = false
    ) {
      self.start = start
      self.end = end
      self.bytes = bytes
      self.isWritable = isWritable
      self.isExecutable = isExecutable
      self.path = path
      self.localFile = localFile
      self.fileOffset = fileOffset
      self.isSparseCopy = isSparseCopy
    }

    /// Whether it maps a file (not anonymous memory or a pseudo-path).
    var mapsFile: Bool { path?.hasPrefix("/") ?? false }
  }

  /// A thread of the process, stopped: its registers are roots, its stack is scanned from its
  /// stack pointer up.
  package struct Thread: Sendable {
    package var id: Int32
    package var name: String?
    package var stackPointer: UInt
    /// The thread pointer (`fs` base on x86-64): glibc's thread descriptor, with static TLS below.
    package var threadPointer: UInt
    /// Every general-purpose register's value.
    package var registers: [UInt]

    package init(id: Int32, name: String?, stackPointer: UInt, threadPointer: UInt, registers: [UInt]) {
      self.id = id
      self.name = name
      self.stackPointer = stackPointer
      self.threadPointer = threadPointer
      self.registers = registers
    }
  }

  package var processID: Int32
  package var arguments: [String]
  package let segments: [Segment]
  /// The threads, the main thread first.
  package var threads: [Thread]
  /// How long the process was stopped while its memory was copied (a live process only).
  package var pauseMilliseconds: Int?
  /// What could not be read, in plain words.
  package var notes: [String]
  /// The program and the libraries it loaded.
  let loadedImages: [LoadedImage]

  package init(
    processID: Int32, arguments: [String], segments: [Segment], threads: [Thread], pauseMilliseconds: Int? = nil, notes: [String] = []
  ) {
    self.processID = processID
    self.arguments = arguments
    self.segments = segments.sorted { $0.start < $1.start }
    self.threads = threads
    self.pauseMilliseconds = pauseMilliseconds
    loadedImages = Self.loadedImages(of: self.segments)
    self.notes =
      notes
      + loadedImages.filter { $0.localFile == nil }.map {
        "\($0.path) is not here, so the types and symbols it defines are unknown: pass --binaries with the directory that holds it"
      }
  }
}
