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

    public var description: String { "\(path): \(reason)" }
  }

  /// Reads the whole file at `path`.
  public static func read(_ path: String) throws(Failure) -> [UInt8] {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw Failure(path: path, reason: "cannot open: \(systemError())") }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { throw Failure(path: path, reason: "cannot inspect: \(systemError())") }
    guard (status.st_mode & S_IFMT) != S_IFDIR else { throw Failure(path: path, reason: "is a directory, not a file") }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(max(Int(status.st_size), 0) + 1)
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    while true {
      let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw Failure(path: path, reason: "cannot read: \(systemError())")
      }
      if count == 0 { break }
      bytes.append(contentsOf: chunk[0..<count])
    }
    return bytes
  }

  /// Writes `bytes` to `path` atomically: to a temporary file in the same directory, flushed,
  /// then renamed over `path`. Readers see the old file or the new one, never a partial one.
  public static func writeAtomically(_ bytes: [UInt8], to path: String) throws(Failure) {
    let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
    let name = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
    var template = Array("\(directory.isEmpty ? "/" : directory)/.\(name).XXXXXX".utf8CString)
    let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard descriptor >= 0 else { throw Failure(path: path, reason: "cannot create a temporary file: \(systemError())") }
    let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    var succeeded = false
    defer {
      if !succeeded { unlink(temporary) }
    }
    var written = 0
    while written < bytes.count {
      let count = bytes.withUnsafeBytes { buffer in
        write(descriptor, buffer.baseAddress! + written, buffer.count - written)
      }
      if count < 0 {
        if errno == EINTR { continue }
        let reason = systemError()
        close(descriptor)
        throw Failure(path: path, reason: "cannot write: \(reason)")
      }
      written += count
    }
    let mode = mode_t(0o644) & ~currentUmask()
    fchmod(descriptor, mode)
    guard fsync(descriptor) == 0 else {
      let reason = systemError()
      close(descriptor)
      throw Failure(path: path, reason: "cannot flush: \(reason)")
    }
    close(descriptor)
    guard rename(temporary, path) == 0 else { throw Failure(path: path, reason: "cannot replace: \(systemError())") }
    succeeded = true
  }

  private static func currentUmask() -> mode_t {
    let mask = umask(0)
    umask(mask)
    return mask
  }

  private static func systemError() -> String {
    String(cString: strerror(errno))
  }
}
