/// The fields of one Protocol Buffers message, read with no schema: enough for tests to check
/// what an encoder wrote, field by field.
///
/// ```swift
/// let message = try ProtobufMessage([8, 150, 1])
/// print(message.integer(1))
/// ```
/// ```text
/// 150
/// ```
public struct ProtobufMessage {
  /// A field's value as the wire format gives it.
  public enum Value: Equatable {
    case varint(UInt64)
    case fixed64(UInt64)
    case lengthDelimited([UInt8])
    case fixed32(UInt32)
  }

  /// Bytes that are no message: a truncated field or an unknown wire type, at the offset.
  public struct Malformed: Error, CustomStringConvertible {
    public var offset: Int
    public var reason: String
    public var description: String { "malformed message at byte \(offset): \(reason)" }
  }

  /// The fields in the order they were written.
  public private(set) var fields: [(number: UInt32, value: Value)] = []

  public init(_ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
      let key = try Self.varint(bytes, &offset)
      guard key >> 3 <= Self.largestFieldNumber else { throw Malformed(offset: offset, reason: "field number \(key >> 3)") }
      let number = UInt32(key >> 3)
      guard number > 0 else { throw Malformed(offset: offset, reason: "field number 0") }
      switch key & 7 {
      case 0:
        fields.append((number, .varint(try Self.varint(bytes, &offset))))
      case 1:
        guard offset + 8 <= bytes.count else { throw Malformed(offset: offset, reason: "truncated fixed64") }
        fields.append((number, .fixed64(bytes[offset..<offset + 8].reversed().reduce(0) { $0 << 8 | UInt64($1) })))
        offset += 8
      case 2:
        let length = Int(try Self.varint(bytes, &offset))
        guard length >= 0, offset + length <= bytes.count else { throw Malformed(offset: offset, reason: "length \(length) past the end") }
        fields.append((number, .lengthDelimited(Array(bytes[offset..<offset + length]))))
        offset += length
      case 5:
        guard offset + 4 <= bytes.count else { throw Malformed(offset: offset, reason: "truncated fixed32") }
        fields.append((number, .fixed32(bytes[offset..<offset + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) })))
        offset += 4
      default:
        throw Malformed(offset: offset, reason: "wire type \(key & 7)")
      }
    }
  }

  /// The numbers of the fields, in the order written.
  public var fieldNumbers: [UInt32] { fields.map(\.number) }

  /// The varint values of field `number`: unpacked ones and packed ones alike, in order.
  public func integers(_ number: UInt32) throws -> [UInt64] {
    var values: [UInt64] = []
    for field in fields where field.number == number {
      switch field.value {
      case .varint(let value):
        values.append(value)
      case .lengthDelimited(let bytes):
        var offset = 0
        while offset < bytes.count { values.append(try Self.varint(bytes, &offset)) }
      default:
        throw Malformed(offset: 0, reason: "field \(number) is not a varint")
      }
    }
    return values
  }

  /// The last varint of field `number`, or 0 when absent (proto3's default).
  public func integer(_ number: UInt32) -> UInt64 {
    (try? integers(number))?.last ?? 0
  }

  /// The last varint of field `number` as a signed integer, or 0.
  public func signedInteger(_ number: UInt32) -> Int64 {
    Int64(bitPattern: integer(number))
  }

  /// The length-delimited values of field `number`.
  public func byteStrings(_ number: UInt32) -> [[UInt8]] {
    fields.compactMap { field in
      guard field.number == number, case .lengthDelimited(let bytes) = field.value else { return nil }
      return bytes
    }
  }

  /// The strings of field `number`.
  public func strings(_ number: UInt32) -> [String] {
    byteStrings(number).map { String(decoding: $0, as: UTF8.self) }
  }

  /// The messages of field `number`.
  public func messages(_ number: UInt32) throws -> [ProtobufMessage] {
    try byteStrings(number).map(ProtobufMessage.init)
  }

  /// The largest field number the format allows, 2²⁹ - 1.
  private static let largestFieldNumber: UInt64 = (1 << 29) - 1

  private static func varint(_ bytes: [UInt8], _ offset: inout Int) throws -> UInt64 {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      guard offset < bytes.count else { throw Malformed(offset: offset, reason: "truncated varint") }
      guard shift < 64 else { throw Malformed(offset: offset, reason: "varint longer than ten bytes") }
      let byte = bytes[offset]
      offset += 1
      value |= UInt64(byte & 0x7F) << shift
      if byte < 0x80 { return value }
      shift += 7
    }
  }
}
