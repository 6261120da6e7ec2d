/// The gzip file format around DEFLATE data: a ten-byte header (no name, no time, so that the
/// same bytes always compress to the same file), the ``Deflate`` blocks, then the CRC-32 of the
/// uncompressed bytes and their count modulo 2³², both little-endian. `gzip -d`, Go's
/// `compress/gzip` and every pprof reader read it.
///
/// ```swift
/// try FileBytes.writeAtomically(Gzip.compress(bytes), to: "data.gz")
/// ```
package enum Gzip {
  /// The magic number, the compression method (8: DEFLATE), no flags, no modification time, no
  /// extra flags, and "unknown" as the operating system.
  private static let header: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 255]

  /// `bytes` as a gzip file.
  package static func compress(_ bytes: [UInt8]) -> [UInt8] {
    var output = header
    output += Deflate.compress(bytes)
    let checksum = CRC32.checksum(bytes)
    let size = UInt32(truncatingIfNeeded: bytes.count)
    for value in [checksum, size] { withUnsafeBytes(of: value.littleEndian) { output.append(contentsOf: $0) } }
    return output
  }
}
