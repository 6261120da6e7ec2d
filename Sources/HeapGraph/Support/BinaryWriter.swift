/// Appends integers, strings and arrays of fixed-width integers to a byte buffer, little-endian
/// (on little-endian machines an array is one copy), for ``BinaryReader``.
package struct BinaryWriter {
  package private(set) var bytes: [UInt8] = []

  package init(reservingCapacity capacity: Int = 0) {
    bytes.reserveCapacity(capacity)
  }

  package mutating func integer<T: FixedWidthInteger>(_ value: T) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }

  /// A length (`Int64`) followed by the UTF-8 bytes.
  package mutating func string(_ value: String) {
    var value = value
    value.withUTF8 { utf8 in
      integer(Int64(utf8.count))
      bytes.append(contentsOf: utf8)
    }
  }

  /// A presence byte, then the string when present.
  package mutating func optionalString(_ value: String?) {
    integer(UInt8(value == nil ? 0 : 1))
    if let value { string(value) }
  }

  /// A count (`Int64`) followed by the elements' bytes.
  package mutating func array<T: FixedWidthInteger>(_ values: [T]) {
    integer(Int64(values.count))
    if isLittleEndianMachine {
      values.withUnsafeBytes { bytes.append(contentsOf: $0) }
    } else {
      for value in values { integer(value) }
    }
  }
}

/// Whether this machine stores integers little-endian, as the binary encoding does.
let isLittleEndianMachine = 1.littleEndian == 1
