import HeapGraph

/// The exit codes of `leak-detector`: a closed set with stable values.
///
/// Commands throw a status to exit with it. `run` exits with the program's own status instead
/// when the program failed (`ProgramExit`), which ``helpTable`` lists as `N`. `--help` prints
/// ``helpTable``; the table of the command-line guide is tested against it.
enum ExitStatus: Int32, Error, CaseIterable {
  case success = 0
  case inputError = 1
  case found = 2
  case baselineStale = 4
  case baselineMissing = 5

  /// What the status means, in one line of `--help`.
  var meaning: String {
    switch self {
    case .success: "nothing found or grown; no new findings (gate, run --baseline)"
    case .inputError: "usage or input error: a bad option, an unreadable or malformed file"
    case .found: "found: cycles, leaks or survivors; growth (diff, growth); new (gate)"
    case .baselineStale: "gate: no new findings, but accepted ones are gone; update the baseline"
    case .baselineMissing: "gate: the baseline file does not exist; create it with --update-baseline"
    }
  }

  /// What `run` exits with when the program it ran did not exit with 0.
  static let programStatusMeaning = "run: the program's own status when it is not 0 (128 + signal if killed)"

  /// Every exit code with its meaning, one per line, as `--help` shows them.
  static var helpTable: String {
    let rows = allCases.map { ("\($0.rawValue)", $0.meaning) } + [("N", programStatusMeaning)]
    return rows.map { "  \($0.0)  \($0.1)" }.joined(separator: "\n")
  }

  /// The status for a gate's verdict.
  init(_ verdict: GateOutcome.Verdict) {
    switch verdict {
    case .passed: self = .success
    case .newFindings: self = .found
    case .baselineStale: self = .baselineStale
    }
  }
}
