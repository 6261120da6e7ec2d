import CLeakRuntime

#if canImport(Glibc)
  import Glibc
#endif

/// A standard-library collection whose elements reflection reads from its native storage, and
/// whose storage's allocation it counts (``arrayStorage(at:elementStride:)``): the one place that
/// recognises them, by the value type's name (`Swift.Array<Feed>`), by the
/// storage class's name (`Swift._ContiguousArrayStorage<Feed>`) or by the storage class's
/// nominal type descriptor (for the scan of global data).
///
/// ```swift
/// StandardCollection(valueTypeName: "Swift.Dictionary<Swift.String, Feed>")  // .dictionary
/// StandardCollection(storageClassName: "Swift._SetStorage<Feed>")            // .set
/// ```
package enum StandardCollection: CaseIterable {
  /// `Array` and `ContiguousArray`: contiguous storage.
  case array
  /// `Dictionary`: native hashed storage with keys and values.
  case dictionary
  /// `Set`: native hashed storage with elements.
  case set

  /// The collection whose value type `name` names (generic arguments included), or `nil`.
  package init?(valueTypeName name: String) {
    guard
      let found = Self.allCases.first(where: { collection in
        collection.valueTypeNames.contains { name.hasPrefix($0 + "<") }
      })
    else { return nil }
    self = found
  }

  /// The collection whose native storage class `name` names (generic arguments included), or
  /// `nil` (an empty singleton, a bridged storage, any other class).
  package init?(storageClassName name: String) {
    guard let found = Self.allCases.first(where: { name.hasPrefix($0.storageClassName + "<") }) else { return nil }
    self = found
  }

  /// The names of the value types, without generic arguments.
  private var valueTypeNames: [String] {
    switch self {
    case .array: ["Swift.Array", "Swift.ContiguousArray"]
    case .dictionary: ["Swift.Dictionary"]
    case .set: ["Swift.Set"]
    }
  }

  /// The name of the native storage class, without generic arguments.
  private var storageClassName: String {
    switch self {
    case .array: "Swift._ContiguousArrayStorage"
    case .dictionary: "Swift._DictionaryStorage"
    case .set: "Swift._SetStorage"
    }
  }

  /// The mangled symbol of the storage class's nominal type descriptor.
  private var storageDescriptorSymbol: String {
    switch self {
    case .array: "$ss23_ContiguousArrayStorageCMn"
    case .dictionary: "$ss18_DictionaryStorageCMn"
    case .set: "$ss11_SetStorageCMn"
    }
  }

  /// The layout item that reads a collection of this kind stored at offset 0, from the layouts
  /// of its generic arguments (`element(0)`, and `element(1)` for a dictionary's values). Every
  /// collection has one: its storage is owned memory even when its elements hold no references.
  func item(element: (UInt32) -> ElementLayout) -> LayoutItem {
    switch self {
    case .array: .array(offset: 0, label: "", element: element(0))
    case .dictionary: .dictionary(offset: 0, label: "", key: element(0), value: element(1))
    case .set: .set(offset: 0, label: "", element: element(0))
    }
  }

  // MARK: - Storage sizes

  /// The storage of an `Array` at `storage` (read fault-safely), or `nil` when it is static (the
  /// empty singleton, a statically initialized literal) or unreadable: its instance size from its
  /// metadata plus its capacity × `elementStride`, which is its allocation.
  static func arrayStorage(at storage: UInt, elementStride: Int) -> OwnedStorage? {
    guard let instanceSize = heapInstanceSize(of: storage),
      let capacityAndFlags = MemoryReader.read(\cleak_array_storage.capacityAndFlags, of: storage)
    else { return nil }
    let capacity = Int(capacityAndFlags >> cleak_array_capacity_shift)
    guard capacity <= Self.maximumBytes / max(elementStride, 1) else { return nil }
    return OwnedStorage(address: storage, bytes: instanceSize + capacity * max(elementStride, 1))
  }

  /// The storage of a `Dictionary` or `Set` at `storage`, or `nil` when it is static (the empty
  /// singleton) or implausible: from its start to the end of its last tail-allocated array,
  /// `lastArray` (the values of a dictionary, the elements of a set) of `bucketCount` × `stride`
  /// bytes. The bitmap and the keys come before it.
  static func hashedStorage(at storage: UInt, lastArray: UInt, bucketCount: Int, stride: Int) -> OwnedStorage? {
    guard let instanceSize = heapInstanceSize(of: storage), lastArray >= storage &+ UInt(instanceSize),
      lastArray - storage <= UInt(Self.maximumBytes), bucketCount <= Self.maximumBytes / max(stride, 1)
    else { return nil }
    return OwnedStorage(address: storage, bytes: Int(lastArray - storage) + bucketCount * max(stride, 1))
  }

  /// The instance size of the storage object at `storage` from its metadata, or `nil` when the
  /// object is unreadable or static (immortal: not a block of the heap).
  static func heapInstanceSize(of storage: UInt) -> Int? {
    guard let metadata = MemoryReader.readWord(at: storage),
      let referenceCounts = MemoryReader.read(\cleak_heap_object.refCounts, of: storage),
      !cleak_refcount_is_immortal(referenceCounts),
      let size = MemoryReader.read(\cleak_class_metadata.instanceSize, of: metadata),
      size >= MemoryLayout<cleak_heap_object>.size
    else { return nil }
    return Int(size)
  }

  /// More than any storage this reader believes (1 TiB): a larger size is a misread.
  static let maximumBytes = 1 << 40

  /// The nominal type descriptors of the storage classes of every collection here, found in the
  /// loaded standard library.
  static let storageDescriptors: [UInt] = allCases.compactMap { collection in
    ProcessSymbols.address(of: collection.storageDescriptorSymbol)
  }
}
