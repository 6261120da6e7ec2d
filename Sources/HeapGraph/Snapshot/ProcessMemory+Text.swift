extension ProcessMemory {
  /// The three views in one line, with what is known of each: the kernel's, malloc's, the
  /// Swift objects'; empty when nothing is known.
  ///
  /// ```text
  /// RSS 412 MiB (anonymous 380 MiB), malloc 300 MiB in use + 80 MiB free in 8 arenas, Swift objects 51,234 (12 MiB)
  /// ```
  package var summary: String {
    var parts: [String] = []
    if let residentBytes {
      parts.append("RSS \(Self.describe(bytes: residentBytes))" + (anonymousBytes.map { " (anonymous \(Self.describe(bytes: $0)))" } ?? ""))
    } else if let anonymousBytes {
      parts.append("anonymous \(Self.describe(bytes: anonymousBytes))")
    }
    var malloc: [String] = []
    if let mallocInUse { malloc.append("\(Self.describe(bytes: mallocInUse)) in use") }
    if let mallocFreeInArenas {
      malloc.append("\(Self.describe(bytes: mallocFreeInArenas)) free" + (mallocArenas.map { " in \(count($0, "arena"))" } ?? ""))
    }
    if !malloc.isEmpty { parts.append("malloc " + malloc.joined(separator: " + ")) }
    if let swiftObjectCount {
      parts.append("Swift objects \(grouped(swiftObjectCount))" + (swiftObjectBytes.map { " (\(Self.describe(bytes: $0)))" } ?? ""))
    }
    return parts.joined(separator: ", ")
  }

  /// A size for people, in binary units with one decimal below 100: `512 bytes`, `3.5 KiB`,
  /// `412 MiB`, `1.2 GiB`.
  package static func describe(bytes: Int) -> String {
    guard bytes >= 0 else { return "-" + describe(bytes: Int(exactly: bytes.magnitude) ?? .max) }
    guard bytes >= 1024 else { return bytes == 1 ? "1 byte" : "\(bytes) bytes" }
    let units = ["KiB", "MiB", "GiB", "TiB"]
    var value = Double(bytes) / 1024
    var unit = 0
    while value >= 1023.95 && unit < units.count - 1 {
      value /= 1024
      unit += 1
    }
    let tenths = Int((value * 10).rounded())
    let text = value >= 99.95 ? String(Int(value.rounded())) : tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
    return "\(text) \(units[unit])"
  }
}
