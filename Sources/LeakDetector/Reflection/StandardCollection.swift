#if canImport(Glibc)
  import Glibc
#endif

/// A standard-library collection whose elements reflection reads from its native storage: the
/// one place that recognises them, by the value type's name (`Swift.Array<Feed>`), by the
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
    guard let found = Self.allCases.first(where: { collection in
      collection.valueTypeNames.contains { name.hasPrefix($0 + "<") }
    }) else { return nil }
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
  /// of its generic arguments (`element(0)`, and `element(1)` for a dictionary's values), or
  /// `nil` when its elements hold no references.
  func item(element: (UInt32) -> ElementLayout) -> LayoutItem? {
    switch self {
    case .array:
      let element = element(0)
      return element.items.isEmpty ? nil : .array(offset: 0, label: "", element: element)
    case .dictionary:
      let (key, value) = (element(0), element(1))
      return key.items.isEmpty && value.items.isEmpty ? nil : .dictionary(offset: 0, label: "", key: key, value: value)
    case .set:
      let element = element(0)
      return element.items.isEmpty ? nil : .set(offset: 0, label: "", element: element)
    }
  }

  /// The nominal type descriptors of the storage classes of every collection here, found in the
  /// loaded standard library.
  static let storageDescriptors: [UInt] = allCases.compactMap { collection in
    dlsym(nil, collection.storageDescriptorSymbol).map { UInt(bitPattern: $0) }
  }
}
