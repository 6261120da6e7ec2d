import HeapGraph

#if canImport(Glibc)
  import Glibc
#endif

/// Shows where a long run is, on standard error, once it has taken more than a second, so quick
/// runs stay quiet. On a terminal it is one line redrawn in place, with a bar when the stage
/// knows how far it is, and erased when the run ends; in a log (not a terminal) it is a line
/// every five seconds.
///
/// ```text
/// leak-detector [3.4 s] searching 1,200 components for cycles ━━━━━━━━━━━━────────  62%
/// ```
final class ProgressPrinter {
  private let start = ContinuousClock.now
  private let isTerminal: Bool
  private let quietPeriod: Duration
  private let interval: Duration
  private let write: (String) -> Void
  private var lastPrint: ContinuousClock.Instant?
  private var isShowingLine = false

  /// - Parameters:
  ///   - isTerminal: whether standard error is a terminal (a line redrawn in place) or a log.
  ///   - quietPeriod: how long a run stays silent.
  ///   - write: where the text goes.
  init(
    isTerminal: Bool = isatty(2) == 1, quietPeriod: Duration = .seconds(1), write: @escaping (String) -> Void = { standardError.write($0) }
  ) {
    self.isTerminal = isTerminal
    self.quietPeriod = quietPeriod
    self.write = write
    interval = isTerminal ? .milliseconds(100) : .seconds(5)
  }

  deinit { finish() }

  /// Reports that `message` is starting now; `fraction` is how far the stage is, when known.
  func report(_ message: @autoclosure () -> String, fraction: Double? = nil) {
    let now = ContinuousClock.now
    guard now - start >= quietPeriod, lastPrint.map({ now - $0 >= interval }) ?? true else { return }
    lastPrint = now
    let elapsed = now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    var line = "leak-detector [\(formatted(seconds)) s] \(message())"
    if isTerminal {
      if let fraction { line += " " + Self.bar(fraction) }
      write("\r\u{1B}[2K" + line)
      isShowingLine = true
    } else {
      write(line + "\n")
    }
  }

  /// Reports a stage of an analysis.
  func report(_ step: AnalysisStep) {
    switch step {
    case .findingComponents:
      report("finding strongly connected components")
    case .searchingComponents(let completed, let total):
      report("searching \(total) components for cycles", fraction: Double(completed) / Double(max(total, 1)))
    case .findingLeaks:
      report("finding leaked objects, survivors and retained sizes")
    }
  }

  /// Erases the progress line, before the report or an error is written.
  func finish() {
    guard isShowingLine else { return }
    write("\r\u{1B}[2K")
    isShowingLine = false
  }

  /// `━━━━━━━━━━━━────────  62%`: twenty cells.
  static func bar(_ fraction: Double) -> String {
    let clamped = min(max(fraction, 0), 1)
    let filled = Int((clamped * 20).rounded(.down))
    let percent = Int((clamped * 100).rounded(.down))
    return String(repeating: "━", count: filled) + String(repeating: "─", count: 20 - filled) + " "
      + (percent < 10 ? "  " : percent < 100 ? " " : "")
      + "\(percent)%"
  }

  private func formatted(_ seconds: Double) -> String {
    let tenths = Int((seconds * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)"
  }
}
