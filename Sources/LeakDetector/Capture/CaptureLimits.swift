/// The bounds of one live capture.
///
/// A capture runs in a child process forked from this one (see `CaptureProcess`): the child
/// reads the frozen copy of the heap while this process's threads keep running. A child that makes
/// no progress for `stallTimeout` (a lock another thread held at the fork instant, say), or runs
/// longer than `timeLimit`, is stopped; a child that crashes or is stopped is replaced by a new
/// one, up to `attempts` in all. Each failure is a diagnostic of the capture.
public struct CaptureLimits: Sendable, Hashable {
  /// How long the child may go without reading another object.
  public var stallTimeout: Duration
  /// How long one attempt may take in all.
  public var timeLimit: Duration
  /// How many children to try before giving up.
  public var attempts: Int

  public init(stallTimeout: Duration = .seconds(10), timeLimit: Duration = .seconds(600), attempts: Int = 3) {
    self.stallTimeout = stallTimeout
    self.timeLimit = timeLimit
    self.attempts = max(attempts, 1)
  }
}
