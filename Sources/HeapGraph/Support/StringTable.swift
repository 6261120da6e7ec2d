/// Interned strings: each distinct string is stored once and named by a dense index.
struct StringTable: Sendable, Equatable {
  private(set) var strings: [String] = []
  private var indexByString: [String: Int32] = [:]

  var count: Int { strings.count }

  subscript(index: Int32) -> String { strings[Int(index)] }

  /// The index of `string`, adding it if it is new.
  mutating func intern(_ string: String) -> Int32 {
    if let index = indexByString[string] { return index }
    let index = Int32(strings.count)
    strings.append(string)
    indexByString[string] = index
    return index
  }

  static func == (lhs: Self, rhs: Self) -> Bool { lhs.strings == rhs.strings }
}
