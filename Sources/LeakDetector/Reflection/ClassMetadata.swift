import CLeakRuntime

/// The metadata of a Swift class, read fault-safely through the layouts of
/// `SwiftMetadataLayout.h` (Swift 6.3.1): its superclass, its nominal type descriptor, and the
/// names and offsets of its own stored properties.
///
/// A word that only looks like metadata (the first word of freed memory) reads as `nil` or as
/// no descriptor: nothing here trusts an address before it has read it.
///
/// ```swift
/// let metadata = ClassMetadata(address: MemoryReader.readWord(at: object) ?? 0)
/// metadata.fieldNames    // ["items", "delegate"]
/// metadata.fieldOffsets  // [16, 24]
/// ```
package struct ClassMetadata {
  package var address: UInt

  package init(address: UInt) {
    self.address = address
  }

  /// The superclass's metadata, or `nil` for a root class or unreadable metadata.
  package var superclass: ClassMetadata? {
    guard let superclass = MemoryReader.read(\cleak_class_metadata.superclass, of: address), superclass != 0 else { return nil }
    return ClassMetadata(address: superclass)
  }

  /// The nominal type descriptor, when it is readable and describes a class: a word that only
  /// points to a pointer fails this, and is never handed to RemoteMirror.
  package var classDescriptor: UInt? {
    guard let descriptor = MemoryReader.read(\cleak_class_metadata.description, of: address), descriptor != 0,
      descriptor & 3 == 0, let flags = MemoryReader.read(\cleak_class_descriptor_layout.flags, of: descriptor),
      flags & cleak_context_descriptor_kind_mask == cleak_context_descriptor_kind_class
    else { return nil }
    return descriptor
  }

  /// The class's own name (unqualified), from its descriptor.
  package var name: String? {
    classDescriptor.flatMap { MemoryReader.readRelativePointer(\cleak_class_descriptor_layout.name, of: $0) }
      .flatMap(Self.readCString)
  }

  /// The offsets of the class's own stored properties, from the field offset vector of its
  /// metadata (the offsets the runtime uses), or `nil` when the metadata does not say them
  /// plainly: not a class descriptor, or a resilient superclass (the vector's place is then
  /// relative to bounds known only at run time).
  package var fieldOffsets: [Int]? {
    guard let descriptor = classDescriptor,
      let flags = MemoryReader.read(\cleak_class_descriptor_layout.flags, of: descriptor),
      flags & cleak_class_flag_has_resilient_superclass == 0,
      let fieldCount = MemoryReader.read(\cleak_class_descriptor_layout.numFields, of: descriptor),
      let vectorOffset = MemoryReader.read(\cleak_class_descriptor_layout.fieldOffsetVectorOffset, of: descriptor),
      fieldCount < 4096, vectorOffset > 0
    else { return nil }
    let wordSize = UInt(MemoryLayout<UInt>.size)
    var offsets: [Int] = []
    for index in 0..<UInt(fieldCount) {
      guard let offset = MemoryReader.readWord(at: address &+ (UInt(vectorOffset) + index) * wordSize), offset < 1 << 32 else {
        return nil
      }
      offsets.append(Int(offset))
    }
    return offsets
  }

  /// The names of the class's own stored properties, in order, read from its descriptor's field
  /// descriptor (whatever their types, which reflection may not be able to describe).
  package var fieldNames: [String]? {
    guard let descriptor = MemoryReader.read(\cleak_class_metadata.description, of: address), descriptor != 0,
      let fields = MemoryReader.readRelativePointer(\cleak_class_descriptor_layout.fields, of: descriptor),
      fields != MemoryReader.address(of: \cleak_class_descriptor_layout.fields, in: descriptor),
      let recordSize = MemoryReader.read(\cleak_field_descriptor.fieldRecordSize, of: fields),
      let count = MemoryReader.read(\cleak_field_descriptor.numFields, of: fields),
      Int(recordSize) >= MemoryLayout<cleak_field_record>.size, count < 4096
    else { return nil }
    let records = fields &+ UInt(MemoryLayout<cleak_field_descriptor>.size)
    var names: [String] = []
    for index in 0..<UInt(count) {
      let record = records &+ index * UInt(recordSize)
      guard let name = MemoryReader.readRelativePointer(\cleak_field_record.fieldName, of: record), let text = Self.readCString(at: name)
      else { return nil }
      names.append(text)
    }
    return names
  }

  /// The NUL-terminated string at `address`, up to 256 bytes.
  private static func readCString(at address: UInt) -> String? {
    var bytes: [UInt8] = []
    let wordSize = UInt(MemoryLayout<UInt>.size)
    for offset in 0..<UInt(256) {
      guard let word = MemoryReader.readWord(at: address &+ offset / wordSize * wordSize) else { return nil }
      let byte = UInt8(truncatingIfNeeded: word >> ((offset % wordSize) * 8))
      if byte == 0 { return String(decoding: bytes, as: UTF8.self) }
      bytes.append(byte)
    }
    return nil
  }
}
