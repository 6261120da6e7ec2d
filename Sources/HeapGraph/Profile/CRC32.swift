/// The CRC-32 of gzip, zlib and PNG (ISO 3309: polynomial 0xEDB88320 in its reflected form,
/// initial value and final XOR 0xFFFFFFFF), a table lookup per byte.
///
/// ```swift
/// print(String(CRC32.checksum(Array("123456789".utf8)), radix: 16))
/// ```
/// ```text
/// cbf43926
/// ```
package enum CRC32 {
  /// The checksum of `bytes`.
  package static func checksum(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    bytes.withUnsafeBufferPointer { buffer in
      table.withUnsafeBufferPointer { table in
        for byte in buffer { crc = table[Int(UInt8(truncatingIfNeeded: crc) ^ byte)] ^ (crc >> 8) }
      }
    }
    return crc ^ 0xFFFF_FFFF
  }

  /// The checksum of each byte value, as the division leaves it after eight shifts.
  private static let table: [UInt32] = (0..<256).map { byte in
    var value = UInt32(byte)
    for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
    return value
  }
}
