/// Little-endian fields of a byte range, read at offsets the caller has checked against
/// ``count``; an offset past the end reads as zeros (never a crash).
///
/// ```swift
/// let reader = ByteReader(bytes: header)
/// let type = reader.u16(16)  // e_type
/// ```
struct ByteReader {
  let bytes: UnsafeRawBufferPointer

  var count: Int { bytes.count }

  func u16(_ offset: Int) -> UInt16 { value(offset) }
  func u32(_ offset: Int) -> UInt32 { value(offset) }
  func u64(_ offset: Int) -> UInt64 { value(offset) }

  private func value<Value: FixedWidthInteger>(_ offset: Int) -> Value {
    guard offset >= 0, offset <= count - MemoryLayout<Value>.size else { return 0 }
    return Value(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Value.self))
  }

  /// The text at `offset` up to its first NUL, at most `maximumCount` bytes.
  func string(_ offset: Int, maximumCount: Int) -> String {
    guard offset >= 0, offset < count, maximumCount > 0 else { return "" }
    let field = bytes[offset..<min(count, offset + maximumCount)]
    return String(decoding: field.prefix { $0 != 0 }, as: UTF8.self)
  }

  /// How many bytes the NUL-terminated text at `offset` has before its NUL, or `nil` when no NUL
  /// ends it before the end of the range.
  func lengthOfString(at offset: Int) -> Int? {
    guard offset >= 0, offset < count else { return nil }
    return bytes[offset...].firstIndex(of: 0).map { $0 - offset }
  }

  /// `count` bytes at `offset`, clamped to the range.
  func slice(_ offset: Int, count length: Int) -> ByteReader {
    let start = min(max(0, offset), count)
    let end = min(count, start + max(0, length))
    return ByteReader(bytes: UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
  }
}
