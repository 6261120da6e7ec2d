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

extension MemoryReader {
  /// The field `field` of the foreign structure `Layout` (mirrored in a layout header of
  /// `CLeakRuntime`) that starts at `base`, or `nil` when it is not readable.
  ///
  /// The field's offset comes from the mirrored struct, so no offset is written here:
  ///
  /// ```swift
  /// let superclass = MemoryReader.read(\cleak_class_metadata.superclass, of: metadata)
  /// ```
  package static func read<Layout, Field: FixedWidthInteger>(_ field: KeyPath<Layout, Field>, of base: UInt) -> Field? {
    guard let address = address(of: field, in: base) else { return nil }
    var value = Field.zero
    let copied = withUnsafeMutableBytes(of: &value) { buffer in
      cleak_read_memory(buffer.baseAddress, address, buffer.count)
    }
    return copied == MemoryLayout<Field>.size ? value : nil
  }

  /// The address that the 32-bit relative pointer `field` of the `Layout` at `base` refers to
  /// (the pointer's own address plus its value), or `nil` when it is not readable.
  package static func readRelativePointer<Layout>(_ field: KeyPath<Layout, Int32>, of base: UInt) -> UInt? {
    guard let address = address(of: field, in: base), let offset = read(field, of: base) else { return nil }
    return address &+ UInt(bitPattern: Int(offset))
  }

  /// The address of `field` in the `Layout` that starts at `base`.
  package static func address<Layout, Field>(of field: KeyPath<Layout, Field>, in base: UInt) -> UInt? {
    MemoryLayout<Layout>.offset(of: field).map { base &+ UInt($0) }
  }
}
