#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Unbuffered writes to a file descriptor: reports to standard output, diagnostics and progress
/// to standard error.
struct OutputStream {
  let descriptor: Int32

  func write(_ text: String) {
    var text = text
    text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
  }

  func write(_ bytes: UnsafeRawBufferPointer) {
    var offset = 0
    while offset < bytes.count {
      let count = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return }
      offset += count
    }
  }
}

let standardOutput = OutputStream(descriptor: 1)
let standardError = OutputStream(descriptor: 2)
