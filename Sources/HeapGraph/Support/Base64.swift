/// `bytes` in base64 (RFC 4648, with padding, no line breaks): how binary data is written into
/// an HTML page, whose script reads it back with `atob` or `Uint8Array.fromBase64`.
///
/// - Complexity: O(*n*), one allocation of the output.
func base64Encoded(_ bytes: [UInt8]) -> String {
  let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
  let outputCount = (bytes.count + 2) / 3 * 4
  return String(unsafeUninitializedCapacity: outputCount) { output in
    bytes.withUnsafeBufferPointer { input in
      var written = 0
      var index = 0
      while index + 3 <= input.count {
        let value = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
        output[written] = alphabet[Int(value >> 18 & 63)]
        output[written + 1] = alphabet[Int(value >> 12 & 63)]
        output[written + 2] = alphabet[Int(value >> 6 & 63)]
        output[written + 3] = alphabet[Int(value & 63)]
        written += 4
        index += 3
      }
      let rest = input.count - index
      if rest > 0 {
        let value = UInt32(input[index]) << 16 | (rest == 2 ? UInt32(input[index + 1]) << 8 : 0)
        output[written] = alphabet[Int(value >> 18 & 63)]
        output[written + 1] = alphabet[Int(value >> 12 & 63)]
        output[written + 2] = rest == 2 ? alphabet[Int(value >> 6 & 63)] : UInt8(ascii: "=")
        output[written + 3] = UInt8(ascii: "=")
        written += 4
      }
      return written
    }
  }
}
