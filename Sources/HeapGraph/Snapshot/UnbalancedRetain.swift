/// An object that a capture found retained more times than anything refers to it: no word of the
/// program's memory holds its address, so nothing can ever release it (such as
/// `Unmanaged.passRetained` whose pointer was dropped). The capture does not make it a root, so
/// it counts as leaked, and records it among the snapshot's diagnostics, from which a report reads
/// it back.
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

  private static let middle = " strong reference"
  private static let ending = " that no word of memory holds, an unbalanced retain (such as Unmanaged.passRetained whose pointer was dropped); it counts as leaked"

  /// The diagnostic a capture records.
  public var diagnostic: String {
    "\(typeName) at 0x\(String(address, radix: 16)): \(count)\(Self.middle)\(count == 1 ? "" : "s")\(Self.ending)"
  }

  /// The unbalanced retain a diagnostic records, or `nil` for any other diagnostic.
  public init?(diagnostic: String) {
    guard diagnostic.hasSuffix(Self.ending), let at = diagnostic.ranges(of: " at 0x").last else { return nil }
    let rest = diagnostic[at.upperBound...]
    guard let colon = rest.firstIndex(of: ":"), let address = UInt64(rest[..<colon], radix: 16) else { return nil }
    let counted = rest[rest.index(colon, offsetBy: 2)...].prefix { $0.isNumber }
    guard let count = Int(counted) else { return nil }
    self.init(typeName: String(diagnostic[..<at.lowerBound]), address: address, count: count)
  }
}
