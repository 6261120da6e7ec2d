/// Appends Protocol Buffers fields to a byte buffer, in the wire format of proto3: varints,
/// length-delimited strings and messages, packed repeated integers. A scalar field that holds its
/// default (0, false) is left out, as proto3 writers do; a string written with
/// ``string(_:_:)`` is always written, so that a repeated string field keeps its empty entries.
/// Fields are given by number; pprof's are named in ``PprofField``.
///
/// ```swift
/// var writer = ProtobufWriter()
/// writer.uint64(1, 150)
/// print(writer.bytes)
/// ```
/// ```text
/// [8, 150, 1]
/// ```
package struct ProtobufWriter {
  /// How a field's value is laid out after its key.
  package enum WireType: UInt64 {
    /// A varint: integers, booleans, enums.
    case varint = 0
    /// A varint length, then that many bytes: strings, bytes, messages, packed repeated fields.
    case lengthDelimited = 2
  }

  package private(set) var bytes: [UInt8] = []

  package init() {}

  /// A base-128 varint: seven bits a byte, least significant first, the high bit set on every
  /// byte but the last.
  package mutating func varint(_ value: UInt64) {
    var value = value
    while value >= 0x80 {
      bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
      value >>= 7
    }
    bytes.append(UInt8(value))
  }

  /// A field's key: its number and wire type (a number is at most 2²⁹ - 1 in the format).
  package mutating func key(_ field: UInt32, _ wireType: WireType) {
    varint(UInt64(field) << 3 | wireType.rawValue)
  }

  /// A `uint64` field, unless it is 0.
  package mutating func uint64(_ field: UInt32, _ value: UInt64) {
    guard value != 0 else { return }
    key(field, .varint)
    varint(value)
  }

  /// An `int64` field, unless it is 0 (a negative value takes ten bytes, as proto3 writes it).
  package mutating func int64(_ field: UInt32, _ value: Int64) {
    uint64(field, UInt64(bitPattern: value))
  }

  /// A `bool` field, unless it is false.
  package mutating func bool(_ field: UInt32, _ value: Bool) {
    uint64(field, value ? 1 : 0)
  }

  /// A `string` field, written even when empty.
  package mutating func string(_ field: UInt32, _ value: String) {
    var value = value
    value.withUTF8 { utf8 in
      key(field, .lengthDelimited)
      varint(UInt64(utf8.count))
      bytes.append(contentsOf: utf8)
    }
  }

  /// A message field: `body` writes the message's own fields.
  package mutating func message(_ field: UInt32, _ body: (inout ProtobufWriter) -> Void) {
    var nested = ProtobufWriter()
    body(&nested)
    key(field, .lengthDelimited)
    varint(UInt64(nested.bytes.count))
    bytes.append(contentsOf: nested.bytes)
  }

  /// A packed repeated `uint64` field (one length, then the varints), unless it is empty.
  package mutating func packed(_ field: UInt32, _ values: [UInt64]) {
    guard !values.isEmpty else { return }
    var nested = ProtobufWriter()
    for value in values { nested.varint(value) }
    key(field, .lengthDelimited)
    varint(UInt64(nested.bytes.count))
    bytes.append(contentsOf: nested.bytes)
  }

  /// A packed repeated `int64` field, unless it is empty.
  package mutating func packed(_ field: UInt32, _ values: [Int64]) {
    packed(field, values.map { UInt64(bitPattern: $0) })
  }

  /// Bytes written by another writer, as they are.
  package mutating func append(_ other: ProtobufWriter) {
    bytes.append(contentsOf: other.bytes)
  }
}
