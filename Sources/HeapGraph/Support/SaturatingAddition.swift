extension FixedWidthInteger {
  /// Adds `other`, stopping at `Self.max` instead of trapping.
  ///
  /// Byte counts come from snapshots, which anyone can write: a file may say an object has
  /// 9223372036854775807 bytes. Totals of such sizes saturate, so a report says
  /// "9,223,372,036,854,775,807 bytes retained" rather than the tool crashing.
  mutating func addSaturating(_ other: Self) {
    let (sum, overflow) = addingReportingOverflow(other)
    self = overflow ? (other > 0 ? .max : .min) : sum
  }
}
