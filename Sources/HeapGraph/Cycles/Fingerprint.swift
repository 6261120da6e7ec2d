/// A stable identity for a leak: a 64-bit FNV-1a hash of type names and reference labels, never
/// of addresses or ids, so the same cycle has the same fingerprint in every run and on every
/// machine. CI baselines key on it.
///
/// ```text
/// 5d3f0e61c1a2b3c4
/// ```
public struct Fingerprint: Sendable, Hashable, Comparable, CustomStringConvertible {
  public let rawValue: UInt64

  public init(rawValue: UInt64) {
    self.rawValue = rawValue
  }

  /// Hashes `parts` in order, with separators that cannot occur in names.
  package init(parts: [String]) {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    func add(_ byte: UInt8) {
      hash ^= UInt64(byte)
      hash = hash &* 0x0000_0100_0000_01b3
    }
    for part in parts {
      for byte in part.utf8 { add(byte) }
      add(0x1F)
    }
    rawValue = hash
  }

  /// Parses the 16 lowercase hexadecimal digits of ``description``, and nothing else: no sign,
  /// no uppercase digit, so that a text parses only if it is its fingerprint's description (a
  /// baseline key spelled otherwise could never match a finding).
  public init?(_ text: String) {
    guard text.utf8.count == 16 else { return nil }
    var value: UInt64 = 0
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value << 4 | UInt64(byte - UInt8(ascii: "0"))
      case UInt8(ascii: "a")...UInt8(ascii: "f"): value = value << 4 | UInt64(byte - UInt8(ascii: "a") + 10)
      default: return nil
      }
    }
    rawValue = value
  }

  /// Sixteen lowercase hexadecimal digits.
  public var description: String {
    let digits = String(rawValue, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }

  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
