/// The memory of the captured objects whose sizes the tracker recorded, for finding which object
/// a word of memory lies in.
struct CapturedExtents {
  /// [start, end) of each object, ascending.
  private let extents: [(start: UInt, end: UInt)]

  /// The extents of the objects at `addresses` whose `size` is known.
  init(addresses: [UInt], size: (UInt) -> Int?) {
    extents = addresses.compactMap { address in
      size(address).flatMap { $0 > 0 ? (address, address + UInt($0)) : nil }
    }.sorted { $0.start < $1.start }
  }

  /// The start of the object whose memory holds `address`, or `nil`.
  func object(containing address: UInt) -> UInt? {
    var low = 0
    var high = extents.count
    while low < high {  // the first object that starts above `address`
      let middle = (low + high) / 2
      if extents[middle].start <= address { low = middle + 1 } else { high = middle }
    }
    guard low > 0, address < extents[low - 1].end else { return nil }
    return extents[low - 1].start
  }
}
