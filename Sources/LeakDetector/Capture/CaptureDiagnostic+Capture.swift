import HeapGraph

extension CaptureDiagnostic {
  /// An object the capture was asked to start from whose class metadata it does not know.
  static func unknownMetadata(address: UInt) -> Self {
    Self(
      kind: .unknownMetadata, message: "a candidate at 0x\(String(address, radix: 16)) has no known class metadata; it was skipped",
      address: UInt64(address))
  }

  /// The walk stopped after `limit` objects (``RetainCycleDetector/Configuration/maxObjects``).
  static func objectLimit(_ limit: Int) -> Self {
    Self(kind: .objectLimit, message: "the search stopped after \(limit) objects (Configuration.maxObjects)", count: limit)
  }

  /// An object that was being deallocated at the instant of the capture.
  static func deallocating(typeName: String, address: UInt) -> Self {
    Self(
      kind: .deallocating, message: "\(typeName) at 0x\(String(address, radix: 16)) was being deallocated; its references were skipped",
      typeName: typeName, address: UInt64(address))
  }

  /// A problem reflection had reading the references of the object at `address` (`problem`, in
  /// reflection's words).
  static func unreadableReferences(typeName: String, address: UInt, problem: String) -> Self {
    Self(kind: .unreadableReferences, message: "\(typeName): \(problem)", typeName: typeName, address: UInt64(address))
  }

  /// A type whose references reflection cannot see (`note`, in ``RuntimeKnowledge``'s words).
  static func opaqueType(typeName: String, note: String) -> Self {
    Self(kind: .opaqueType, message: note, typeName: typeName)
  }

  /// A thread (`name`) that was running during a whole-process capture.
  static func threadNotScanned(name: String) -> Self {
    Self(
      kind: .threadNotScanned,
      message: "\(name) was running, so its stack was not scanned; what it holds counts as held from outside the snapshot")
  }

  /// The pthread-specific values of other threads could not be read during a whole-process
  /// capture (the C library's thread descriptor is not laid out as expected).
  static func threadSpecificValuesNotRead() -> Self {
    Self(
      kind: .threadSpecificValuesNotRead,
      message: "the C library's thread descriptors are not laid out as expected, so other threads' pthread-specific values were not read; "
        + "objects that nothing else refers to count as held from outside the snapshot")
  }
}
