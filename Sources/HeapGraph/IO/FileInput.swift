#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A regular file read from its start in pieces, for readers that decode as they read: a binary
/// snapshot of ten million objects becomes its columns without its 800 MB file in memory beside
/// them. Its length is measured when it is opened, so that a reader can check every count it
/// reads against the bytes left before it allocates anything.
///
/// ```swift
/// if let input = try FileInput(regularFileAt: "heap.heapsnapshot") {
///   let snapshot = try HeapSnapshot(binaryInput: input)
/// }
/// ```
public final class FileInput {
  /// The file's path, for messages.
  public let path: String
  /// The file's length in bytes when it was opened.
  public let length: Int
  private let descriptor: Int32
  /// Bytes read ahead by ``peek(_:)``, which the next reads return first.
  private var readAhead: [UInt8] = []

  /// Opens the file at `path` for reading, or returns `nil` when it is not a regular file (a
  /// directory, a pipe, a device), which ``FileBytes/read(_:limit:)`` reads whole or refuses
  /// with the reason.
  ///
  /// - Throws: when it cannot be opened or inspected.
  public init?(regularFileAt path: String) throws(FileBytes.Failure) {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw FileBytes.Failure(path: path, reason: "cannot open: \(Self.systemError())") }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      let reason = Self.systemError()
      close(descriptor)
      throw FileBytes.Failure(path: path, reason: "cannot inspect: \(reason)")
    }
    guard status.st_mode & S_IFMT == S_IFREG else {
      close(descriptor)
      return nil
    }
    self.path = path
    self.descriptor = descriptor
    length = Int(status.st_size)
  }

  deinit {
    close(descriptor)
  }

  /// The file's first bytes, up to `count` of them, which later reads return again.
  public func peek(_ count: Int) throws(FileBytes.Failure) -> [UInt8] {
    if readAhead.count < count {
      var more = [UInt8](repeating: 0, count: count - readAhead.count)
      let read = try more.withUnsafeMutableBytes { buffer in
        Result { () throws(FileBytes.Failure) in try readFromFile(into: buffer) }
      }.get()
      readAhead += more[0..<read]
    }
    return Array(readAhead.prefix(count))
  }

  /// Fills `buffer` with the next bytes of the file; returns how many it read, fewer than the
  /// buffer holds only at the end of the file.
  func read(into buffer: UnsafeMutableRawBufferPointer) throws(FileBytes.Failure) -> Int {
    var filled = 0
    if !readAhead.isEmpty {
      filled = min(readAhead.count, buffer.count)
      readAhead.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: filled) }
      readAhead.removeFirst(filled)
    }
    guard filled < buffer.count else { return filled }
    return try filled + readFromFile(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
  }

  private func readFromFile(into buffer: UnsafeMutableRawBufferPointer) throws(FileBytes.Failure) -> Int {
    var filled = 0
    while filled < buffer.count {
      let count = Glibc.read(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
      if count < 0 {
        if errno == EINTR { continue }
        throw FileBytes.Failure(path: path, reason: "cannot read: \(Self.systemError())")
      }
      if count == 0 { break }
      filled += count
    }
    return filled
  }

  private static func systemError() -> String {
    String(cString: strerror(errno))
  }
}
