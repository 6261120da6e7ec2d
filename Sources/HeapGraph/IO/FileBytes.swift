#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Whole-file reads and atomic writes: the only file access of `HeapGraph`, so that the CLI and
/// in-process capture read and write snapshots and reports the same way.
public enum FileBytes {
  /// A file that could not be read or written, with the system's reason.
  public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The path involved.
    public var path: String
    /// What was being done and why it failed: `"cannot open: No such file or directory"`.
    public var reason: String

    public var description: String { "\(path.isEmpty ? "\"\"" : path): \(reason)" }
  }

  /// The most `read` and `readStandardInput` take unless told otherwise: 4 GiB, about ten times
  /// a snapshot of a million objects. It keeps a wrong file (a disk image, a core dump) from
  /// being read into memory whole.
  public static let defaultReadLimit = 4 << 30

  /// Reads the whole file at `path`: a regular file, or a pipe or socket read to its end.
  ///
  /// - Throws: when the file cannot be opened or read, is a directory or a device, or holds
  ///   more than `limit` bytes (a regular file is measured before it is read).
  public static func read(_ path: String, limit: Int = defaultReadLimit) throws(Failure) -> [UInt8] {
    guard !path.isEmpty else { throw emptyPath }
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw Failure(path: path, reason: "cannot open: \(systemError())") }
    defer { close(descriptor) }
    return try readToEnd(descriptor, name: path, limit: limit, acceptsDevices: false)
  }

  /// Reads standard input to its end, whatever it is (a pipe, a file, a terminal), and names it
  /// `name` in failures.
  ///
  /// - Throws: when it cannot be read, is a directory, or holds more than `limit` bytes.
  public static func readStandardInput(named name: String, limit: Int = defaultReadLimit) throws(Failure) -> [UInt8] {
    try readToEnd(STDIN_FILENO, name: name, limit: limit, acceptsDevices: true)
  }

  /// Reads `descriptor` from where it is to its end, but never more than `limit` bytes.
  private static func readToEnd(_ descriptor: Int32, name: String, limit: Int, acceptsDevices: Bool) throws(Failure) -> [UInt8] {
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { throw Failure(path: name, reason: "cannot inspect: \(systemError())") }
    let kind = status.st_mode & S_IFMT
    guard kind != S_IFDIR else { throw Failure(path: name, reason: "is a directory, not a file") }
    guard acceptsDevices || (kind != S_IFCHR && kind != S_IFBLK) else {
      throw Failure(path: name, reason: "is a device, not a file")
    }
    var expected = 0
    if kind == S_IFREG {
      expected = max(Int(status.st_size) - max(Int(lseek(descriptor, 0, SEEK_CUR)), 0), 0)
      guard expected <= limit else { throw tooLarge(name, limit: limit) }
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(expected + 1)
    // Read in chunks of at most a mebibyte, never filled beforehand: a file of /proc (which says
    // it holds nothing) is read in 64 KiB, where zeroing a mebibyte for a few bytes cost more
    // than the read.
    let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: min(max(expected + 1, 64 << 10), 1 << 20), alignment: 16)
    defer { chunk.deallocate() }
    while true {
      let wanted = min(chunk.count, limit + 1 - bytes.count)
      let count = Glibc.read(descriptor, chunk.baseAddress, wanted)
      if count < 0 {
        if errno == EINTR { continue }
        throw Failure(path: name, reason: "cannot read: \(systemError())")
      }
      if count == 0 { break }
      bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
      guard bytes.count <= limit else { throw tooLarge(name, limit: limit) }
    }
    return bytes
  }

  private static let emptyPath = Failure(path: "", reason: "an empty path names no file")

  private static func tooLarge(_ name: String, limit: Int) -> Failure {
    Failure(path: name, reason: "is too large: more than \(describeSize(limit)), the most that is read")
  }

  /// `4 GiB`, `512 MiB`, `10 bytes`.
  private static func describeSize(_ bytes: Int) -> String {
    if bytes >= 1 << 30 && bytes % (1 << 30) == 0 { return "\(bytes >> 30) GiB" }
    if bytes >= 1 << 20 && bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
    return bytes == 1 ? "1 byte" : "\(bytes) bytes"
  }

  /// Writes `bytes` to `path` atomically: to a temporary file in the same directory, flushed,
  /// then renamed over `path`. Readers see the old file or the new one, never a partial one,
  /// and when anything fails the old file is left as it was.
  ///
  /// A new file is readable and writable by its owner only (mode 0600): snapshots, profiles
  /// and reports carry what a program held. The process-wide umask is never read or changed
  /// (another thread may be creating files meanwhile). A symbolic link stays a link: the file
  /// it names is replaced. An existing file keeps its permissions. A pipe or device (`/dev/stdout`) cannot be replaced, so it is written to
  /// directly. A directory is refused, and so is a file the caller may not write (a read-only
  /// file stays read-only).
  public static func writeAtomically(_ bytes: [UInt8], to path: String) throws(Failure) {
    try bytes.withUnsafeBytes { buffer in Result { () throws(Failure) in try writeAtomically(buffer, to: path) } }.get()
  }

  /// Writes `text` as UTF-8, as the byte-array version does, without copying it first.
  public static func writeAtomically(_ text: String, to path: String) throws(Failure) {
    var text = text
    try text.withUTF8 { utf8 in Result { () throws(Failure) in try writeAtomically(UnsafeRawBufferPointer(utf8), to: path) } }.get()
  }

  /// Writes what `produce` hands to the function it is given, piece by piece and in order, to
  /// `path` atomically, as the other `writeAtomically` functions write a whole buffer: a
  /// report of tens of megabytes is never whole in memory. After a piece fails to be written,
  /// later pieces are dropped, and the failure is thrown once `produce` returns.
  public static func writeAtomically(to path: String, producing produce: ((UnsafeRawBufferPointer) -> Void) -> Void) throws(Failure) {
    try writeAtomically(to: path) { descriptor throws(Failure) in
      var failure: Failure?
      produce { piece in
        guard failure == nil else { return }
        do throws(Failure) {
          try writeAll(piece, to: descriptor, path: path)
        } catch {
          failure = error
        }
      }
      if let failure { throw failure }
    }
  }

  private static func writeAtomically(_ bytes: UnsafeRawBufferPointer, to path: String) throws(Failure) {
    try writeAtomically(to: path) { descriptor throws(Failure) in try writeAll(bytes, to: descriptor, path: path) }
  }

  /// Opens a temporary file beside `path` (or `path` itself when it is a pipe or a device), lets
  /// `write` write everything to its descriptor, then flushes it and renames it over `path`.
  private static func writeAtomically(to path: String, _ write: (Int32) throws(Failure) -> Void) throws(Failure) {
    guard !path.isEmpty else { throw emptyPath }
    var status = stat()
    let exists = stat(path, &status) == 0
    let kind = status.st_mode & S_IFMT
    if exists && kind == S_IFDIR { throw Failure(path: path, reason: "is a directory, not a file") }
    if exists && access(path, W_OK) != 0 { throw Failure(path: path, reason: "cannot write: \(systemError())") }
    if exists && kind != S_IFREG {
      try writeInPlace(to: path, write)
      return
    }
    let target = exists ? resolvedPath(path) ?? path : path
    let directory = target.lastIndex(of: "/").map { String(target[..<$0]) } ?? "."
    let name = target.lastIndex(of: "/").map { String(target[target.index(after: $0)...]) } ?? target
    var template = Array("\(directory.isEmpty ? "/" : directory)/.\(name).XXXXXX".utf8CString)
    let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard descriptor >= 0 else {
      throw Failure(path: path, reason: "cannot create a file in \(directory.isEmpty ? "/" : directory): \(systemError())")
    }
    let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    var succeeded = false
    defer {
      if !succeeded { unlink(temporary) }
    }
    do {
      try write(descriptor)
    } catch {
      close(descriptor)
      throw error
    }
    if exists { fchmod(descriptor, status.st_mode & 0o7777) }  // mkstemp made it 0600
    guard fsync(descriptor) == 0 else {
      let reason = systemError()
      close(descriptor)
      throw Failure(path: path, reason: "cannot flush: \(reason)")
    }
    close(descriptor)
    guard rename(temporary, target) == 0 else { throw Failure(path: path, reason: "cannot replace: \(systemError())") }
    succeeded = true
  }

  /// Writes to a pipe or device that exists already.
  private static func writeInPlace(to path: String, _ write: (Int32) throws(Failure) -> Void) throws(Failure) {
    let descriptor = open(path, O_WRONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw Failure(path: path, reason: "cannot open: \(systemError())") }
    defer { close(descriptor) }
    try write(descriptor)
  }

  private static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, path: String) throws(Failure) {
    var written = 0
    while written < bytes.count {
      let count = write(descriptor, bytes.baseAddress! + written, bytes.count - written)
      if count < 0 {
        if errno == EINTR { continue }
        throw Failure(path: path, reason: "cannot write: \(systemError())")
      }
      written += count
    }
  }

  /// `path` with every symbolic link resolved, or `nil` when it names nothing that exists.
  package static func resolvedPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  private static func systemError() -> String {
    String(cString: strerror(errno))
  }
}
