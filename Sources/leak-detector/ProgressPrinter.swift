import HeapGraph

/// Prints progress to standard error once a run has taken more than a second, at most one line
/// per second, so quick runs stay quiet and long ones show where they are.
final class ProgressPrinter {
  private let start = ContinuousClock.now
  private let interval: Duration
  private var lastPrint: ContinuousClock.Instant?

  init(interval: Duration = .seconds(1)) {
    self.interval = interval
  }

  /// Reports that `message` is starting now.
  func report(_ message: @autoclosure () -> String) {
    let now = ContinuousClock.now
    guard now - (lastPrint ?? start) >= interval else { return }
    lastPrint = now
    let elapsed = now - start
    let text = message()
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    standardError.write("leak-detector: [\(formatted(seconds)) s] \(text)\n")
  }

  /// Reports a stage of an analysis.
  func report(_ step: AnalysisStep) {
    switch step {
    case .findingComponents:
      report("finding strongly connected components")
    case .searchingComponents(let completed, let total):
      report("searching \(total) components for cycles (\(completed * 100 / max(total, 1))%)")
    case .findingLeaks:
      report("finding leaked objects, survivors and retained sizes")
    }
  }

  private func formatted(_ seconds: Double) -> String {
    let tenths = Int((seconds * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)"
  }
}
