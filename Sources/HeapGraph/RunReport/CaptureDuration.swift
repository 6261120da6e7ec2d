/// How long a capture took, as `leak-detector run` and its agent say it: on each snapshot line,
/// in the text report's "Checked …" lines, and as a number of seconds in the JSON run report.
///
/// The agent measures each capture and records it in the snapshot's metadata
/// (`captureMilliseconds`).
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

  /// The seconds to two decimals (`0.41`).
  package var secondsText: String {
    let hundredths = Int((seconds * 100).rounded())
    let fraction = hundredths % 100
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
  }
}
