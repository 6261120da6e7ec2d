/// Reads what ``BinaryWriter`` wrote, checking every length against the bytes left, so that a
/// truncated or corrupt buffer is an error, never a trap or a huge allocation.
///
/// It reads a buffer held whole, or a file (``FileInput``) as it goes: then it holds a window of
/// about a megabyte, and an array's bytes go from the file straight into the array.
package struct BinaryReader {
  /// The whole data, or the window of the file that holds the next bytes.
  private var bytes: [UInt8]
  /// The offset in the data of `bytes[0]` (always 0 for a whole buffer).
  private var bytesOffset = 0
  /// The data's length.
  private let length: Int
  /// The file a window is read from; `nil` for a whole buffer.
  private let input: FileInput?
  /// The offset of the next byte to read.
  package private(set) var position = 0

  /// How many bytes a window of a file holds at least.
  private static let windowSize = 1 << 20

  package init(_ bytes: [UInt8]) {
    self.bytes = bytes
    length = bytes.count
    input = nil
  }

  /// A reader of `input` from its start, to its length.
  package init(_ input: FileInput) {
    bytes = []
    length = input.length
    self.input = input
  }

  /// Fails unless every byte was read: what follows `what` is not what the writer wrote.
  package func expectEnd(after what: String) throws(BinaryDecodingError) {
    guard position == length else { throw BinaryDecodingError(message: "bytes after the end of \(what)") }
    if let input {
      var probe: UInt8 = 0
      let grown = try Self.reading { () throws(FileBytes.Failure) in
        try withUnsafeMutableBytes(of: &probe) { probe in Result { () throws(FileBytes.Failure) in try input.read(into: probe) } }.get()
      }
      guard grown == 0 else { throw BinaryDecodingError(message: "bytes after the end of \(what) (the file grew while it was read)") }
    }
  }

  package mutating func integer<T: FixedWidthInteger>(_: T.Type = T.self) throws(BinaryDecodingError) -> T {
    let size = MemoryLayout<T>.size
    try require(size, "an integer")
    let value = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: position - bytesOffset, as: T.self) }
    position += size
    return T(littleEndian: value)
  }

  package mutating func string() throws(BinaryDecodingError) -> String {
    let count = try count(ofItemsOfAtLeast: 1, "a string")
    try require(count, "a string")
    let start = position - bytesOffset
    let value = String(decoding: bytes[start..<start + count], as: UTF8.self)
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
    let byteCount = count * size
    // What the window holds is copied; a file's other bytes are read into the array itself.
    let buffered = min(byteCount, bytesOffset + bytes.count - position)
    let start = position - bytesOffset
    var failure: BinaryDecodingError?
    let values = [T](unsafeUninitializedCapacity: count) { buffer, initialized in
      let target = UnsafeMutableRawBufferPointer(buffer)
      bytes.withUnsafeBytes { source in
        target.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[start..<start + buffered]))
      }
      if buffered < byteCount, let input {
        do throws(BinaryDecodingError) {
          let read = try Self.reading { () throws(FileBytes.Failure) in
            try input.read(into: UnsafeMutableRawBufferPointer(rebasing: target[buffered..<byteCount]))
          }
          if read < byteCount - buffered { throw Self.endsEarly("an array", at: position + buffered + read) }
        } catch {
          failure = error
        }
      }
      initialized = count
    }
    if let failure { throw failure }
    position += byteCount
    if input != nil && position > bytesOffset + bytes.count {  // read past the window: it is empty now
      bytes.removeAll(keepingCapacity: true)
      bytesOffset = position
    }
    return isLittleEndianMachine ? values : values.map { T(littleEndian: $0) }
  }

  /// A count that is read next, checked against what is left when each item takes at least
  /// `itemSize` bytes.
  package mutating func count(ofItemsOfAtLeast itemSize: Int, _ what: String) throws(BinaryDecodingError) -> Int {
    let count = try integer(Int64.self)
    guard count >= 0, count <= Int64(length - position) / Int64(max(itemSize, 1)) else {
      throw BinaryDecodingError(message: "\(what): a count of \(count) at offset \(position - 8) exceeds the data")
    }
    return Int(count)
  }

  /// Makes sure the next `size` bytes are in the window, reading them from the file if need be.
  private mutating func require(_ size: Int, _ what: String) throws(BinaryDecodingError) {
    guard length - position >= size else { throw Self.endsEarly(what, at: position) }
    guard let input, position + size > bytesOffset + bytes.count else { return }
    // Keep what is not read yet, then fill the window up.
    bytes.removeFirst(position - bytesOffset)
    bytesOffset = position
    let wanted = min(max(size, Self.windowSize), length - position) - bytes.count
    let kept = bytes.count
    bytes.append(contentsOf: repeatElement(0, count: wanted))
    let read = try Self.reading { () throws(FileBytes.Failure) in
      try bytes.withUnsafeMutableBytes { buffer in
        Result { () throws(FileBytes.Failure) in try input.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[kept...])) }
      }.get()
    }
    bytes.removeLast(wanted - read)
    guard bytes.count >= size else { throw Self.endsEarly(what, at: bytesOffset + bytes.count) }
  }

  private static func endsEarly(_ what: String, at offset: Int) -> BinaryDecodingError {
    BinaryDecodingError(message: "\(what) at offset \(offset): the data ends early")
  }

  /// `read`'s result, its failure to read the file as a decoding error.
  private static func reading<T>(_ read: () throws(FileBytes.Failure) -> T) throws(BinaryDecodingError) -> T {
    do {
      return try read()
    } catch {
      throw BinaryDecodingError(message: "\(error.reason)")
    }
  }
}
