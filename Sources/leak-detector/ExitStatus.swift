import HeapGraph

/// The exit codes of `leak-detector`: a closed set with stable values, documented in `--help`
/// and the README. Commands throw a status to exit with it.
enum ExitStatus: Int32, Error {
  /// Nothing found (analyze), nothing grew (diff), no new findings (gate).
  case success = 0
  /// A usage error or unusable input.
  case inputError = 1
  /// Something was found: retain cycles, leaks or survivors (analyze), growth (diff), findings
  /// the baseline does not accept (gate).
  case found = 2
  /// gate: no new findings, but accepted ones are gone (fixed); update the baseline.
  case baselineStale = 4
  /// gate: the baseline file does not exist; create it with `--update-baseline`.
  case baselineMissing = 5

  /// The status for a gate's verdict.
  init(_ verdict: GateOutcome.Verdict) {
    switch verdict {
    case .passed: self = .success
    case .newFindings: self = .found
    case .baselineStale: self = .baselineStale
    }
  }
}
