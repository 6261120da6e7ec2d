import ArgumentParser
import HeapGraph

#if canImport(Glibc)
  import Glibc
#endif

/// The directory of the package being checked: its code is the reader's own, which reports list
/// first, and SARIF locations are made relative to it.
struct SourceRootOption: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "The package's directory (default: the current one): cycles of its code are listed before its dependencies', "
        + "and SARIF file locations are written relative to it.",
      valueName: "directory"))
  var sourceRoot: String?

  /// The code of the package in ``resolved``.
  var ownCode: OwnCode { OwnCode(packageDirectory: resolved) }

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
