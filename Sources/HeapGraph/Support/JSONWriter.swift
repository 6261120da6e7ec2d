/// Appends JSON text to a byte buffer: hand-written so that output is fast, and deterministic
/// (keys in the order written, integers without exponents, stable escaping).
struct JSONWriter {
  private(set) var bytes: [UInt8] = []

  init(reservingCapacity capacity: Int = 4096) {
    bytes.reserveCapacity(capacity)
  }

  mutating func raw(_ text: StaticString) {
    bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  mutating func raw(_ text: String) {
    bytes.append(contentsOf: text.utf8)
  }

  /// Writes `"key": ` (the key must not need escaping).
  mutating func key(_ key: StaticString) {
    bytes.append(UInt8(ascii: "\""))
    raw(key)
    raw("\": ")
  }

  mutating func string(_ value: String) {
    bytes.append(UInt8(ascii: "\""))
    for byte in value.utf8 {
      switch byte {
      case UInt8(ascii: "\""): raw("\\\"")
      case UInt8(ascii: "\\"): raw("\\\\")
      case 0x0A: raw("\\n")
      case 0x0D: raw("\\r")
      case 0x09: raw("\\t")
      case 0..<0x20:
        raw("\\u00")
        bytes.append(Self.hexDigits[Int(byte >> 4)])
        bytes.append(Self.hexDigits[Int(byte & 0xF)])
      default: bytes.append(byte)
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }

  mutating func optionalString(_ value: String?) {
    if let value { string(value) } else { raw("null") }
  }

  mutating func integer<T: BinaryInteger>(_ value: T) {
    if value == 0 {
      bytes.append(UInt8(ascii: "0"))
      return
    }
    var magnitude = value.magnitude
    if value < 0 { bytes.append(UInt8(ascii: "-")) }
    var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                 UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
      (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var count = 0
    withUnsafeMutableBytes(of: &digits) { buffer in
      while magnitude > 0 {
        buffer[count] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
        magnitude /= 10
        count += 1
      }
      while count > 0 {
        count -= 1
        bytes.append(buffer[count])
      }
    }
  }

  /// Writes `"0x7f3a10"`.
  mutating func hexAddress(_ value: UInt64) {
    raw("\"0x")
    raw(String(value, radix: 16))
    bytes.append(UInt8(ascii: "\""))
  }

  private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
