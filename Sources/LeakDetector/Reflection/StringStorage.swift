import CLeakRuntime

/// The heap buffer a `String` value owns, found from the value's two words in place (a copy
/// would retain it), through the layouts of `SwiftStandardLibraryLayout.h`.
///
/// A small string keeps its bytes inline and a literal's live in the binary: neither owns a
/// block. A native string's `__StringStorage` is one allocation of its instance size, its real
/// capacity (code units and the terminating NUL) and, when its flag says so, a breadcrumbs
/// pointer. A `__SharedStringStorage` (bytes owned elsewhere) counts its own instance size.
enum StringStorage {
  /// The name of the class of shared string storage.
  static let sharedStorageClassName = "Swift.__SharedStringStorage"

  /// The metadata of `__StringStorage`, read from a native string of this library's own; `nil`
  /// when that string's storage is not readable. Native storage is recognised by it.
  static let nativeMetadata: UInt? = {
    var text = String(repeating: "storage", count: 8)
    text.append("!")
    return withUnsafeBytes(of: &text) { value in
      storageAddress(ofStringAt: UInt(bitPattern: value.baseAddress)).flatMap { MemoryReader.readWord(at: $0) }
    }
  }()

  /// The storage the `String` at `address` owns, or `nil` when it owns none on the heap (small,
  /// literal, bridged or static) or its storage is unreadable. `isSharedStorage` says whether a
  /// class, by its metadata, is `__SharedStringStorage`. The value's two words must be readable
  /// (inside an object or storage the caller keeps alive).
  static func owned(byStringAt address: UInt, isSharedStorage: (UInt) -> Bool) -> OwnedStorage? {
    guard let storage = storageAddress(ofStringAt: address),
      let metadata = MemoryReader.readWord(at: storage), let instanceSize = StandardCollection.heapInstanceSize(of: storage)
    else { return nil }
    let countAndFlags = UInt64(RuntimeReflector.State.word(at: MemoryReader.address(of: \cleak_string.countAndFlags, in: address) ?? 0))
    let native = cleak_string_natively_stored_flag | cleak_string_tail_allocated_flag
    if countAndFlags & native == native {
      guard metadata == nativeMetadata, let capacityAndFlags = MemoryReader.read(\cleak_string_storage.capacityAndFlags, of: storage)
      else { return nil }
      let capacity = Int(capacityAndFlags & cleak_string_storage_capacity_mask)
      guard capacity <= StandardCollection.maximumBytes else { return nil }
      let wordSize = MemoryLayout<UInt>.size
      let breadcrumbs = capacityAndFlags & cleak_string_storage_breadcrumbs_flag != 0 ? wordSize : 0
      return OwnedStorage(address: storage, bytes: instanceSize + (capacity + wordSize - 1) / wordSize * wordSize + breadcrumbs)
    }
    guard countAndFlags & native == 0, isSharedStorage(metadata) else { return nil }
    return OwnedStorage(address: storage, bytes: instanceSize)
  }

  /// The address of the storage object of the large, mortal, neither bridged nor foreign `String`
  /// at `address`, or `nil` for any other string.
  private static func storageAddress(ofStringAt address: UInt) -> UInt? {
    guard address != 0 else { return nil }
    let object = UInt64(RuntimeReflector.State.word(at: MemoryReader.address(of: \cleak_string.object, in: address) ?? 0))
    guard object & cleak_string_object_discriminator_mask == 0, object != 0 else { return nil }
    return UInt(object & cleak_string_object_address_mask)
  }
}
