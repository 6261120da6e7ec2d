/// The exit codes of `leak-detector`: a closed set with stable values, documented in `--help`
/// and the README.
enum ExitStatus: Int32 {
  /// No retain cycles.
  case success = 0
  /// A usage error or unusable input.
  case inputError = 1
  /// Retain cycles were found.
  case cyclesFound = 2
}
