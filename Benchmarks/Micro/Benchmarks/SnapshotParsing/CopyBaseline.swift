import MicroBenchmarkSupport

#if canImport(Glibc)
  import Glibc
#endif

/// The baseline of the parse benchmarks: copying the bytes an operation reads, with `memcpy`
/// into a buffer allocated and touched once, so that page faults do not count; the fastest of
/// three copies. Decoding the binary encoding is meant to cost about a copy.
final class CopyBaseline {
  private let destination: UnsafeMutableRawBufferPointer

  /// A baseline for inputs of up to `capacity` bytes.
  init(capacity: Int) {
    destination = .allocate(byteCount: max(capacity, 1), alignment: 64)
    destination.initializeMemory(as: UInt8.self, repeating: 0)
  }

  deinit {
    destination.deallocate()
  }

  /// How long copying `bytes` takes, in nanoseconds (the fastest of three copies).
  func nanosecondsToCopy(_ bytes: [UInt8]) -> Int {
    precondition(bytes.count <= destination.count, "the copy baseline's buffer is too small")
    var fastest = Int.max
    for _ in 0..<3 {
      let elapsed = nanoseconds {
        bytes.withUnsafeBytes { source in _ = memcpy(destination.baseAddress!, source.baseAddress!, source.count) }
      }
      fastest = min(fastest, elapsed)
    }
    return fastest
  }
}
