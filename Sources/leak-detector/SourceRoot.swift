#if canImport(Glibc)
  import Glibc
#endif

/// The directory SARIF locations are made relative to: `option` (made absolute), or the current
/// directory, which in CI is the repository checkout.
func resolvedSourceRoot(_ option: String?) -> String? {
  var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
  guard getcwd(&buffer, buffer.count) != nil else { return option?.hasPrefix("/") == true ? option : nil }
  let current = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  guard let option else { return current }
  return option.hasPrefix("/") ? option : current + "/" + option
}
