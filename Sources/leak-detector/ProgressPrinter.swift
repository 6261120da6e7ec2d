/// Prints progress to standard error, but only once a run has taken more than a second, so
/// quick runs stay quiet and long ones show where they are.
final class ProgressPrinter {
  private let start = ContinuousClock.now
  private let threshold: Duration
  private var lastMessage = ""

  init(threshold: Duration = .seconds(1)) {
    self.threshold = threshold
  }

  /// Reports that `message` is starting now.
  func report(_ message: @autoclosure () -> String) {
    let elapsed = ContinuousClock.now - start
    guard elapsed >= threshold else { return }
    let text = message()
    guard text != lastMessage else { return }
    lastMessage = text
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    standardError.write("leak-detector: [\(formatted(seconds)) s] \(text)\n")
  }

  private func formatted(_ seconds: Double) -> String {
    let tenths = Int((seconds * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)"
  }
}
