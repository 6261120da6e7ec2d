import HeapGraph

/// Why a capture of the live heap gave nothing: every attempt of its capture child failed, or the
/// Swift runtime's layouts are not the ones this build reads, so none was made.
///
/// A test's `LeakFinding` carries it when a survivor could not be explained; the snapshot's
/// diagnostics record the same failure (the last of its kind). ``description`` is the sentence they say:
///
/// ```text
/// the capture process was killed by signal 11 (Segmentation fault) while reading nothing yet; the capture was given up after 2 attempts
/// ```
public struct CaptureFailure: Error, CustomStringConvertible, Sendable, Equatable {
  enum Storage: Sendable, Equatable {
    /// Each of `attempts` attempts failed, the last with `lastAttempt`.
    case gaveUp(lastAttempt: CaptureAttemptFailure, attempts: Int)
    /// The runtime check found `mismatch`, so nothing was captured.
    case runtimeLayoutMismatch(RuntimeLayoutCheck.Fact)
  }

  let storage: Storage

  init(_ storage: Storage) {
    self.storage = storage
  }

  /// The capture was given up after `attempts` attempts, the last of which failed with `lastAttempt`.
  static func gaveUp(lastAttempt: CaptureAttemptFailure, attempts: Int) -> CaptureFailure {
    CaptureFailure(.gaveUp(lastAttempt: lastAttempt, attempts: attempts))
  }

  /// No capture was made: the runtime's layout fact `mismatch` differs from this build's.
  static func runtimeLayoutMismatch(_ mismatch: RuntimeLayoutCheck.Fact) -> CaptureFailure {
    CaptureFailure(.runtimeLayoutMismatch(mismatch))
  }

  /// How many capture children were tried: 0 when none could be, the runtime's layouts being
  /// unknown to this build.
  public var attempts: Int {
    switch storage {
    case .gaveUp(_, let attempts): attempts
    case .runtimeLayoutMismatch: 0
    }
  }

  /// The failure as the snapshot's diagnostics record it: of kind `capture-failed` (or
  /// `capture-set-up-failed` when the last child could not even be started), with the number of
  /// the last attempt, or of kind `layout-mismatch`.
  public var diagnostic: CaptureDiagnostic {
    switch storage {
    case .gaveUp(let lastAttempt, let attempts): lastAttempt.diagnostic(attempt: attempts, of: attempts)
    case .runtimeLayoutMismatch: CaptureDiagnostic(kind: .layoutMismatch, message: description)
    }
  }

  /// The sentence for people: the last attempt's failure and how many attempts there were, or
  /// the runtime layout fact that differs.
  public var description: String {
    switch storage {
    case .gaveUp(let lastAttempt, let attempts): "\(lastAttempt); the capture was given up after \(attempts) attempts"
    case .runtimeLayoutMismatch(let mismatch): RuntimeLayoutCheck.diagnostic(mismatch)
    }
  }
}
