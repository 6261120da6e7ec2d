import HeapGraph

/// Why one attempt of a capture child gave no capture: the child could not be started, crashed,
/// stalled, ran too long, exited without its result, or sent one that did not decode.
///
/// It is a value until it becomes a diagnostic of kind ``CaptureDiagnostic/Kind/captureFailed``;
/// ``description`` is the one place its sentence is written. When the last attempt fails, the
/// capture's ``CaptureFailure`` holds it.
///
/// ```text
/// the capture process was killed by signal 11 (Segmentation fault) while reading 0x7f3a10 (MyApp.Feed)
/// ```
enum CaptureAttemptFailure: Error, CustomStringConvertible, Sendable, Equatable {
  /// A resource the attempt needs (`shared memory`, a `pipe`, the child process itself) could
  /// not be had; `error` is the system's text for `errno`.
  case couldNotSetUp(Resource, error: String)
  /// The child made no progress for `timeout` while reading `place`; `waitChannel` is what the
  /// kernel said it waits in (empty when unknown). It was killed.
  case stalled(timeout: Duration, waitChannel: String, place: String)
  /// The child ran longer than `limit`, while reading `place`. It was killed.
  case ranTooLong(limit: Duration, place: String)
  /// The child was killed by `signal` (named `signalName`) while reading `place`.
  case killed(signal: Int32, signalName: String, place: String)
  /// The child exited with `status` before it sent its whole result; in a sanitizer build,
  /// `sanitizerReport` is the first line of its sanitizer's report, if it wrote one.
  case exitedWithoutResult(status: Int32, sanitizerReport: String?)
  /// The child's result did not decode (`error`).
  case unreadableResult(error: String)

  /// What an attempt needs before its child runs.
  enum Resource: Sendable, Equatable {
    case sharedMemory, pipe, process
  }

  var description: String {
    switch self {
    case .couldNotSetUp(.sharedMemory, let error): "could not share memory with a capture process (\(error))"
    case .couldNotSetUp(.pipe, let error): "could not open a pipe to a capture process (\(error))"
    case .couldNotSetUp(.process, let error): "could not start a capture process (\(error))"
    case .stalled(let timeout, let waitChannel, let place):
      "the capture process made no progress for \(timeout)\(waitChannel) while reading \(place); it was stopped"
    case .ranTooLong(let limit, let place): "the capture process ran longer than \(limit) while reading \(place); it was stopped"
    case .killed(let signal, let signalName, let place):
      "the capture process was killed by signal \(signal) (\(signalName)) while reading \(place)"
    case .exitedWithoutResult(let status, let report):
      "the capture process exited with status \(status) without sending its result" + (report.map { " (\($0))" } ?? "")
    case .unreadableResult(let error): "the capture process sent a result that could not be read (\(error))"
    }
  }

  /// The diagnostic of attempt `attempt` of `attempts`, which says whether the capture went on:
  /// of kind ``CaptureDiagnostic/Kind/captureFailed`` when a child ran and failed, of kind
  /// ``CaptureDiagnostic/Kind/captureSetUpFailed`` when none could be started.
  func diagnostic(attempt: Int, of attempts: Int) -> CaptureDiagnostic {
    let message =
      attempt < attempts ? "\(description); captured again" : CaptureFailure.gaveUp(lastAttempt: self, attempts: attempt).description
    let kind: CaptureDiagnostic.Kind
    if case .couldNotSetUp = self { kind = .captureSetUpFailed } else { kind = .captureFailed }
    return CaptureDiagnostic(kind: kind, message: message, count: attempt)
  }
}
