/// Reads what ``BinaryWriter`` wrote, checking every length against the bytes left, so that a
/// truncated or corrupt buffer is an error, never a trap or a huge allocation.
package struct BinaryReader {
  private let bytes: [UInt8]
  /// The offset of the next byte to read.
  package private(set) var position = 0

  package init(_ bytes: [UInt8]) {
    self.bytes = bytes
  }

  /// Fails unless every byte was read: what follows `what` is not what the writer wrote.
  package func expectEnd(after what: String) throws(BinaryDecodingError) {
    guard position == bytes.count else { throw BinaryDecodingError(message: "bytes after the end of \(what)") }
  }

  package mutating func integer<T: FixedWidthInteger>(_: T.Type = T.self) throws(BinaryDecodingError) -> T {
    let size = MemoryLayout<T>.size
    try require(size, "an integer")
    let value = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: position, as: T.self) }
    position += size
    return T(littleEndian: value)
  }

  package mutating func string() throws(BinaryDecodingError) -> String {
    let count = try count(ofItemsOfAtLeast: 1, "a string")
    let value = String(decoding: bytes[position..<position + count], as: UTF8.self)
    position += count
    return value
  }

  package mutating func optionalString() throws(BinaryDecodingError) -> String? {
    switch try integer(UInt8.self) {
    case 0: return nil
    case 1: return try string()
    default: throw BinaryDecodingError(message: "a bad presence byte at offset \(position - 1)")
    }
  }

  package mutating func array<T: FixedWidthInteger>(of _: T.Type = T.self) throws(BinaryDecodingError) -> [T] {
    let size = MemoryLayout<T>.size
    let count = try count(ofItemsOfAtLeast: size, "an array")
    let values = [T](unsafeUninitializedCapacity: count) { buffer, initialized in
      bytes.withUnsafeBytes { source in
        UnsafeMutableRawBufferPointer(buffer).copyMemory(
          from: UnsafeRawBufferPointer(rebasing: source[position..<position + count * size]))
      }
      initialized = count
    }
    position += count * size
    return isLittleEndianMachine ? values : values.map { T(littleEndian: $0) }
  }

  /// A count that is read next, checked against what is left when each item takes at least
  /// `itemSize` bytes.
  package mutating func count(ofItemsOfAtLeast itemSize: Int, _ what: String) throws(BinaryDecodingError) -> Int {
    let count = try integer(Int64.self)
    guard count >= 0, count <= Int64(bytes.count - position) / Int64(max(itemSize, 1)) else {
      throw BinaryDecodingError(message: "\(what): a count of \(count) at offset \(position - 8) exceeds the data")
    }
    return Int(count)
  }

  private func require(_ size: Int, _ what: String) throws(BinaryDecodingError) {
    guard bytes.count - position >= size else {
      throw BinaryDecodingError(message: "\(what) at offset \(position): the data ends early")
    }
  }
}
