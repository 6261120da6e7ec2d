/// Maps object ids to their positions: a flat table when ids are dense (the usual case: ids
/// counted from 0 or 1), a dictionary otherwise.
struct ObjectIDIndex {
  /// Two positions that share an id.
  struct Duplicate: Error {
    var index: Int
    var firstIndex: Int
  }

  private var base: Int64 = 0
  private var table: [Int32] = []
  private var dictionary: [Int64: Int32] = [:]
  private var isDense = true

  /// - Throws: ``Duplicate`` for the first id that appears twice.
  init(ids: [Int64]) throws(Duplicate) {
    guard let low = ids.min(), let high = ids.max() else { return }
    let (span, overflow) = high.subtractingReportingOverflow(low)
    isDense = !overflow && span < Int64(ids.count) * 4 + 1024
    if isDense {
      base = low
      table = Array(repeating: -1, count: Int(span) + 1)
      for (index, id) in ids.enumerated() {
        let slot = Int(id - low)
        if table[slot] >= 0 { throw Duplicate(index: index, firstIndex: Int(table[slot])) }
        table[slot] = Int32(index)
      }
    } else {
      dictionary.reserveCapacity(ids.count)
      for (index, id) in ids.enumerated() {
        if let first = dictionary.updateValue(Int32(index), forKey: id) {
          throw Duplicate(index: index, firstIndex: Int(first))
        }
      }
    }
  }

  subscript(id: Int64) -> Int32? {
    if isDense {
      let (offset, overflow) = id.subtractingReportingOverflow(base)
      guard !overflow, offset >= 0, offset < Int64(table.count) else { return nil }
      let index = table[Int(offset)]
      return index < 0 ? nil : index
    }
    return dictionary[id]
  }
}
