/// How ``ProcessImage/capture(processID:options:)`` captures a running process.
///
/// ```swift
/// var options = CaptureOptions()
/// options.maximumCopiedBytes = 4 << 30  // refuse to copy more than 4 GiB of writable memory
/// let image = try ProcessImage.capture(processID: pid, options: options)
/// ```
public struct CaptureOptions: Sendable {
  /// Runs while every thread of the target is stopped, after the copy: a hook for tests (a
  /// capture killed at that point must leave the target running).
  public var whileStopped: (@Sendable () -> Void)? = nil

  /// Runs while every thread of the target is stopped, after ``whileStopped``; a failure it
  /// returns fails the capture there: a hook for tests (a capture that fails while it holds the
  /// target must resume it).
  public var failureWhileStopped: (@Sendable () -> ProcessImageFailure?)? = nil

  /// The most bytes of writable memory the capture copies while the target is stopped; more
  /// fails the capture before anything is copied (before the target is stopped, or right after when
  /// it grew meanwhile). `nil`: no limit.
  public var maximumCopiedBytes: UInt? = nil

  public init() {}
}
