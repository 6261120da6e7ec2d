#if canImport(Glibc)
  import Glibc
#endif

/// The thin edge to the file system: whole small files (`/proc` ones report no size, so they are
/// read to their end), links, and files opened to be mapped.
///
/// ```swift
/// let maps = SystemFiles.text(at: "/proc/\(pid)/maps") ?? ""
/// ```
enum SystemFiles {
  /// The bytes of the file at `path`, read to its end, or `nil` when it cannot be opened or read.
  static func bytes(at path: String) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      if count < 0 { return nil }
      if count == 0 { return bytes }
      bytes += chunk[0..<count]
    }
  }

  /// `count` bytes of the file at `path` from `offset`, or `nil` when it cannot be read or is
  /// shorter.
  static func bytes(at path: String, from offset: UInt64 = 0, count: Int) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0, count >= 0, count <= 1 << 24, offset <= UInt64(Int.max) else { return nil }
    defer { close(descriptor) }
    var bytes = [UInt8](repeating: 0, count: count)
    let read = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
    return read == count ? bytes : nil
  }

  /// The file at `path` as UTF-8 text (invalid bytes repaired), or `nil`.
  static func text(at path: String) -> String? {
    bytes(at: path).map { String(decoding: $0, as: UTF8.self) }
  }

  /// The target of the symbolic link at `path`, or `nil`.
  static func linkTarget(at path: String) -> String? {
    var buffer = [CChar](repeating: 0, count: 4097)
    let count = readlink(path, &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// A regular file opened for reading: its descriptor, inode and size, or `nil`.
  static func openRegularFile(_ path: String) -> (descriptor: Int32, inode: UInt64, size: UInt64)? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    var status = stat()
    guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
      close(descriptor)
      return nil
    }
    return (descriptor, UInt64(status.st_ino), UInt64(status.st_size))
  }

  /// Whether a file exists at `path`.
  static func exists(_ path: String) -> Bool {
    access(path, F_OK) == 0
  }

  /// The page size.
  static let pageSize = UInt(sysconf(Int32(_SC_PAGESIZE)))
}
