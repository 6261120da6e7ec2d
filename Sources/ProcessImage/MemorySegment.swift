/// One readable range of another process's address space, and its bytes when they could be read.
///
/// The bytes live in this process's memory (a copy, or a read-only mapping of the core file or
/// of the mapped file) that the ``ProcessImage`` owns: `contents` is valid as long as the image
/// is, and never written.
///
/// ```swift
/// let segment = image.segment(containing: address)!
/// print(String(segment.start, radix: 16), segment.path ?? "anonymous", segment.contents != nil)
/// ```
/// ```text
/// 55d0c3a4e000 [heap] true
/// ```
public struct MemorySegment: @unchecked Sendable {
  /// The first address of the segment.
  public let start: UInt
  /// The address after its last byte.
  public let end: UInt
  public let isReadable: Bool
  public let isWritable: Bool
  public let isExecutable: Bool
  /// The mapped file's path (without ` (deleted)`), a pseudo-path such as `[heap]` or
  /// `[stack]`, or `nil` for anonymous memory (and, in a core, for any range its notes do not
  /// name).
  public let path: String?
  /// Where in the file the segment starts (0 when it maps no file).
  public let fileOffset: UInt64
  /// The segment's bytes, `end - start` of them, or `nil` when they could not be read (the
  /// image's diagnostics say why).
  public let contents: UnsafeRawBufferPointer?

  /// The segment's length in bytes.
  public var count: UInt { end - start }

  /// Whether `address` is in the segment.
  public func contains(_ address: UInt) -> Bool { address >= start && address < end }

  public init(
    start: UInt, end: UInt, isReadable: Bool = true, isWritable: Bool, isExecutable: Bool, path: String?, fileOffset: UInt64 = 0,
    contents: UnsafeRawBufferPointer?
  ) {
    self.start = start
    self.end = end
    self.isReadable = isReadable
    self.isWritable = isWritable
    self.isExecutable = isExecutable
    self.path = path
    self.fileOffset = fileOffset
    self.contents = contents
  }

  /// The same range with other bytes (or none).
  func with(contents: UnsafeRawBufferPointer?) -> MemorySegment {
    MemorySegment(
      start: start, end: end, isReadable: isReadable, isWritable: isWritable, isExecutable: isExecutable, path: path,
      fileOffset: fileOffset, contents: contents)
  }
}
