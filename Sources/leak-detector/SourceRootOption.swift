import ArgumentParser

#if canImport(Glibc)
  import Glibc
#endif

/// The directory SARIF locations are made relative to.
struct SourceRootOption: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "SARIF file locations are written relative to this directory (default: the current one).", valueName: "directory"))
  var sourceRoot: String?

  /// `--source-root` made absolute, or the current directory, which in CI is the repository
  /// checkout.
  var resolved: String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard getcwd(&buffer, buffer.count) != nil else { return sourceRoot?.hasPrefix("/") == true ? sourceRoot : nil }
    let current = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    guard let sourceRoot else { return current }
    return sourceRoot.hasPrefix("/") ? sourceRoot : current + "/" + sourceRoot
  }
}
