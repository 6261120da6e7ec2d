import CLeakRuntime

/// Reads memory of this process without crashing on bad addresses.
///
/// Reflection follows pointers it cannot fully trust (an object being deallocated, an unknown
/// layout); every read goes through here so that a bad pointer becomes `nil`, not a segfault.
/// The corresponding system call is `process_vm_readv` on the calling process.
///
/// ```swift
/// let word = MemoryReader.readWord(at: 0x10)   // nil: the page is not mapped
/// ```
public enum MemoryReader {
  /// The 8-byte word at `address`, or `nil` when it is not readable.
  public static func readWord(at address: UInt) -> UInt? {
    var value: UInt = 0
    let copied = withUnsafeMutableBytes(of: &value) { buffer in
      cleak_read_memory(buffer.baseAddress, address, buffer.count)
    }
    return copied == MemoryLayout<UInt>.size ? value : nil
  }
}
