import CZlib

/// Bytes compressed into the gzip file format by the system's zlib: what the heap profiles
/// (`.pb.gz`) are written in, read by `gzip -d`, Go's `compress/gzip` and every pprof reader.
///
/// The file's header names no file and no modification time, and gives the operating system as
/// 255 (unknown), so the same bytes always compress to the same file, on every machine with the
/// same zlib. The corresponding C functions are zlib's `deflateInit2` (window bits 31: a 32 KiB
/// window and the gzip wrapper), `deflateSetHeader`, `deflateBound` and `deflate`.
///
/// ```swift
/// let profile = HeapProfile(snapshot: snapshot)
/// try FileBytes.writeAtomically(Gzip.compress(profile.pprofProfile.serializedBytes()), to: "heap.pb.gz")
/// ```
package enum Gzip {
  /// The compression level: the fastest, as Go's `runtime/pprof` writes its profiles
  /// (`gzip.BestSpeed`); a profile is written at a process's exit, where time counts, and level 1
  /// already compresses a profile to within a few percent of level 6.
  package static let level: Int32 = 1

  /// `bytes` as a gzip file, compressed at ``level``.
  ///
  /// - Complexity: O(n) in the length of `bytes`; the output is allocated once, at zlib's bound
  ///   for the input's length.
  package static func compress(_ bytes: [UInt8]) -> [UInt8] {
    // zlib keeps pointers to both until the stream ends (its state checks that the stream has
    // not moved), so neither may live in a Swift variable that an inout access could copy.
    let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    stream.initialize(to: z_stream())
    let header = UnsafeMutablePointer<gz_header>.allocate(capacity: 1)
    header.initialize(to: gz_header())
    header.pointee.os = 255
    defer {
      stream.deallocate()
      header.deallocate()
    }
    let initialized = czlib_deflate_init_gzip(stream, level)
    precondition(initialized == Z_OK, "Gzip.compress: zlib's deflateInit2 failed with \(initialized) (out of memory?)")
    defer { deflateEnd(stream) }
    let headerSet = deflateSetHeader(stream, header)
    precondition(headerSet == Z_OK, "Gzip.compress: zlib's deflateSetHeader failed with \(headerSet)")

    let bound = Int(deflateBound(stream, UInt(bytes.count)))
    return [UInt8](unsafeUninitializedCapacity: bound) { output, count in
      count = bytes.withUnsafeBufferPointer { input in deflate(input, into: output, stream: stream) }
    }
  }

  /// Runs `stream` over all of `input` to its end, in pieces of at most 4 GiB (zlib counts in
  /// 32 bits), and returns how many bytes of `output`, which holds zlib's bound, it wrote.
  private static func deflate(
    _ input: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>, stream: UnsafeMutablePointer<z_stream>
  ) -> Int {
    let piece = Int(UInt32.max)
    var consumed = 0
    var produced = 0
    while true {
      let inputPiece = min(input.count - consumed, piece)
      let outputPiece = min(output.count - produced, piece)
      stream.pointee.next_in = inputPiece == 0 ? nil : UnsafeMutablePointer(mutating: input.baseAddress! + consumed)
      stream.pointee.avail_in = UInt32(inputPiece)
      stream.pointee.next_out = output.baseAddress! + produced
      stream.pointee.avail_out = UInt32(outputPiece)
      let flush = consumed + inputPiece == input.count ? Z_FINISH : Z_NO_FLUSH
      let status = CZlib.deflate(stream, flush)
      consumed += inputPiece - Int(stream.pointee.avail_in)
      produced += outputPiece - Int(stream.pointee.avail_out)
      if status == Z_STREAM_END { return produced }
      precondition(status == Z_OK, "Gzip.compress: zlib's deflate failed with \(status) after \(consumed) of \(input.count) bytes")
    }
  }
}
