/// Packs bit fields into bytes the way DEFLATE does: each field's least significant bit first,
/// fields one after the other from the low bits of a byte upwards.
struct DeflateBitWriter {
  private(set) var bytes: [UInt8]
  /// Bits not yet in ``bytes``, the first in the lowest place.
  private var pending: UInt64 = 0
  private var pendingCount = 0

  init(reservingCapacity capacity: Int) {
    bytes = []
    bytes.reserveCapacity(capacity)
  }

  /// The low `count` bits of `value` (at most 32), least significant first.
  @inline(__always)
  mutating func write(_ value: UInt32, count: Int) {
    pending |= UInt64(value) << UInt64(pendingCount)
    pendingCount += count
    if pendingCount >= 32 {
      withUnsafeBytes(of: UInt32(truncatingIfNeeded: pending).littleEndian) { bytes.append(contentsOf: $0) }
      pending >>= 32
      pendingCount -= 32
    }
  }

  /// Fills the current byte with zero bits, so that what follows starts on a byte.
  mutating func alignToByte() {
    while pendingCount > 0 {
      bytes.append(UInt8(truncatingIfNeeded: pending))
      pending >>= 8
      pendingCount = max(pendingCount - 8, 0)
    }
    pending = 0
  }
}
