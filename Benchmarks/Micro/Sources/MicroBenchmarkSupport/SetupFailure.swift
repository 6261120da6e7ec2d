/// Why a benchmark's set-up cannot measure what the benchmark is about; the harness reports it
/// and fails the run.
public struct SetupFailure: Error, CustomStringConvertible {
  public var description: String

  public init(_ description: String) {
    self.description = description
  }
}
