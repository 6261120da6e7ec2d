import CZlib
import GzipCompression

extension Gzip {
  /// A gzip file that zlib cannot read to its end: `status` is the return code of zlib's
  /// `inflate` (`Z_DATA_ERROR` for a corrupt stream or checksum, `Z_BUF_ERROR` for a truncated one).
  package struct Corrupt: Error, CustomStringConvertible {
    package var status: Int32
    package var message: String
    package var description: String { "not a complete gzip file: zlib's inflate returned \(status) (\(message))" }
  }

  /// The bytes a gzip file holds, read back by zlib's `inflate` (one member, checksum and length
  /// checked): the reverse of ``compress(_:)`` for tests, in the process.
  package static func decompress(_ bytes: [UInt8]) throws(Corrupt) -> [UInt8] {
    let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    stream.initialize(to: z_stream())
    defer { stream.deallocate() }
    let initialized = czlib_inflate_init_gzip(stream)
    guard initialized == Z_OK else { throw Corrupt(status: initialized, message: "inflateInit2 failed") }
    defer { inflateEnd(stream) }
    var output: [UInt8] = []
    var piece = [UInt8](repeating: 0, count: 1 << 16)
    var input = bytes
    let status = input.withUnsafeMutableBufferPointer { input in
      stream.pointee.next_in = input.baseAddress
      stream.pointee.avail_in = UInt32(input.count)
      while true {
        let status = piece.withUnsafeMutableBufferPointer { piece in
          stream.pointee.next_out = piece.baseAddress
          stream.pointee.avail_out = UInt32(piece.count)
          return inflate(stream, Z_NO_FLUSH)
        }
        output += piece[..<(piece.count - Int(stream.pointee.avail_out))]
        guard status == Z_OK else { return status }
      }
    }
    guard status == Z_STREAM_END, stream.pointee.avail_in == 0 else {
      let message = stream.pointee.msg.map { String(cString: $0) } ?? (status == Z_STREAM_END ? "bytes after the end" : "truncated")
      throw Corrupt(status: status, message: message)
    }
    return output
  }
}
