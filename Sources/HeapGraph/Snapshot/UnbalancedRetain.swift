/// An object that a capture found retained more times than anything refers to it: no word of the
/// program's memory holds its address, so nothing can ever release it (such as
/// `Unmanaged.passRetained` whose pointer was dropped). The capture does not make it a root, so
/// it counts as leaked, and records it among the snapshot's diagnostics, of kind
/// ``CaptureDiagnostic/Kind/unbalancedRetain``, from which a report reads it back.
///
/// ```text
/// Retains.DroppedRetain at 0x55d1c2a3e8f0: 1 strong reference that no word of memory holds, an unbalanced retain (such as Unmanaged.passRetained whose pointer was dropped); it counts as leaked
/// ```
public struct UnbalancedRetain: Sendable, Hashable {
  public var typeName: String
  public var address: UInt64
  /// The retains nothing accounts for.
  public var count: Int

  public init(typeName: String, address: UInt64, count: Int) {
    self.typeName = typeName
    self.address = address
    self.count = count
  }

  /// The diagnostic a capture records.
  public var diagnostic: CaptureDiagnostic {
    let references = count == 1 ? "1 strong reference" : "\(count) strong references"
    return CaptureDiagnostic(
      kind: .unbalancedRetain,
      message: "\(typeName) at 0x\(String(address, radix: 16)): \(references) that no word of memory holds, "
        + "an unbalanced retain (such as Unmanaged.passRetained whose pointer was dropped); it counts as leaked",
      typeName: typeName, address: address, count: count)
  }

  /// The unbalanced retain a diagnostic records, read from its kind and fields (never from its
  /// message), or `nil` for any other diagnostic.
  public init?(diagnostic: CaptureDiagnostic) {
    guard diagnostic.kind == .unbalancedRetain, let typeName = diagnostic.typeName, let address = diagnostic.address,
      let count = diagnostic.count
    else { return nil }
    self.init(typeName: typeName, address: address, count: count)
  }
}
