/// How long a capture took, as `leak-detector run` and its agent say it: on each snapshot line,
/// in the text report's "Checked …" lines, and as a number of seconds in the JSON run report.
///
/// The agent measures its exit capture and leaves the seconds in the run directory next to the
/// exit snapshot (`RunProtocol.captureDurationFileName(processID:)`), so that the snapshot
/// itself, and any golden file made from one, holds no timing.
///
/// ```swift
/// print(CaptureDuration(seconds: 0.4127).description)
/// ```
/// ```text
/// captured in 0.41 s
/// ```
public struct CaptureDuration: Sendable, Hashable, CustomStringConvertible {
  public var seconds: Double

  public init(seconds: Double) {
    self.seconds = max(0, seconds)
  }

  /// The time from `start` to now on the continuous clock.
  package init(since start: ContinuousClock.Instant) {
    let elapsed = (ContinuousClock.now - start).components
    self.init(seconds: Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
  }

  /// `captured in 0.41 s`: to the hundredth of a second.
  public var description: String { "captured in \(secondsText) s" }

  /// The seconds to two decimals (`0.41`), as the agent writes them for the command.
  package var secondsText: String {
    let hundredths = Int((seconds * 100).rounded())
    let fraction = hundredths % 100
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
  }

  /// The duration the agent wrote as ``secondsText``, or `nil` for other text.
  package init?(secondsText text: String) {
    guard let seconds = Double(text.filter { !$0.isWhitespace }), seconds.isFinite else { return nil }
    self.init(seconds: seconds)
  }
}
