#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Interned strings: each distinct string is stored once and named by a dense index.
struct StringTable: Sendable, Equatable {
  private(set) var strings: [String] = []
  private var indexByString: [String: Int32] = [:]
  /// The index of each string by a hash of its UTF-8 bytes, for ``index(ofUTF8:)``; a string
  /// whose hash another has already is only in ``indexByString``.
  private var indexByHash: [UInt64: Int32] = [:]

  var count: Int { strings.count }

  subscript(index: Int32) -> String { strings[Int(index)] }

  /// Makes room for `count` strings in all, so that a reader that knows how many there are
  /// interns them without growing the table step by step.
  mutating func reserveCapacity(_ count: Int) {
    strings.reserveCapacity(count)
    indexByString.reserveCapacity(count)
    indexByHash.reserveCapacity(count)
  }

  /// The index of `string`, adding it if it is new.
  mutating func intern(_ string: String) -> Int32 {
    if let index = indexByString[string] { return index }
    let index = Int32(strings.count)
    strings.append(string)
    indexByString[string] = index
    var string = string
    let hash = string.withUTF8(Self.hash)
    if indexByHash[hash] == nil { indexByHash[hash] = index }
    return index
  }

  /// The index of the string whose UTF-8 bytes are `utf8`, if the table has it: a reader finds
  /// a string it has seen before without making a `String` of it.
  func index(ofUTF8 utf8: UnsafeBufferPointer<UInt8>) -> Int32? {
    guard let index = indexByHash[Self.hash(utf8)] else { return nil }
    var candidate = strings[Int(index)]
    let matches = candidate.withUTF8 { $0.count == utf8.count && ($0.isEmpty || memcmp($0.baseAddress!, utf8.baseAddress!, $0.count) == 0) }
    return matches ? index : nil
  }

  /// FNV-1a over UTF-8 bytes.
  private static func hash(_ utf8: UnsafeBufferPointer<UInt8>) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return hash
  }

  static func == (lhs: Self, rhs: Self) -> Bool { lhs.strings == rhs.strings }
}
