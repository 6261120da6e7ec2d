import HeapGraph

extension RunProtocol {
  private static let captureDurationSuffix = ".exit.capture-seconds"

  /// `4242.exit.capture-seconds`: the file, next to the exit snapshot, in which a checked process
  /// says how long its exit capture took (``CaptureDuration/secondsText``).
  package static func captureDurationFileName(processID: Int32) -> String {
    "\(processID)\(captureDurationSuffix)"
  }
}
