/// A column of 64-bit integers kept in the narrowest form its values allow: a single value when
/// every entry is the same (a snapshot that records no generations), four bytes an entry when
/// each fits in 32 bits, eight otherwise. An ``ObjectGraph`` keeps its objects' sizes and
/// generations this way: a heap of ten million objects needs 80 to 160 MB less.
///
/// ```swift
/// let sizes = IntegerColumn([48, -1, 4_096], unknown: -1)  // four bytes an entry
/// sizes[1]  // -1
/// ```
struct IntegerColumn: Sendable {
  private enum Storage {
    case uniform(Int64)
    /// ``IntegerColumn/narrowUnknown`` stands for the column's `unknown` value.
    case narrow([Int32])
    case wide([Int64])
  }

  private let storage: Storage
  /// The value that marks an unknown entry (it need not fit in 32 bits).
  private let unknown: Int64
  /// The number of entries.
  let count: Int

  /// What a four-byte entry holds for the unknown value.
  private static let narrowUnknown = Int32.min

  /// The column of `values`, where `unknown` marks an entry without a value.
  init(_ values: [Int64], unknown: Int64) {
    self.unknown = unknown
    count = values.count
    if let first = values.first, values.allSatisfy({ $0 == first }) {
      storage = .uniform(first)
    } else if values.allSatisfy({ $0 == unknown || (Int64(Self.narrowUnknown) + 1...Int64(Int32.max)).contains($0) }) {
      storage = .narrow(values.map { $0 == unknown ? Self.narrowUnknown : Int32(truncatingIfNeeded: $0) })
    } else {
      storage = .wide(values)
    }
  }

  subscript(index: Int) -> Int64 {
    switch storage {
    case .uniform(let value):
      precondition(index >= 0 && index < count, "IntegerColumn: index \(index) is out of range")
      return value
    case .narrow(let values):
      let value = values[index]
      return value == Self.narrowUnknown ? unknown : Int64(value)
    case .wide(let values): return values[index]
    }
  }
}
