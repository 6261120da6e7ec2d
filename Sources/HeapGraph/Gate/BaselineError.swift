/// A baseline file that cannot be used: what is wrong and where.
///
/// The description names the member by its key path, then the problem, then the byte offset
/// with its line and column:
///
/// ```text
/// accepted.c69426e4d2ea887e.reason: expected a string, found a number (byte 84, line 5, column 17)
/// ```
public struct BaselineError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What is wrong, in plain words: `"expected a string, found a number"`.
  public let problem: String
  /// Where the problem is; `nil` only for an empty file.
  public let location: SnapshotLocation?

  init(problem: String, location: SnapshotLocation?) {
    self.problem = problem
    self.location = location
  }

  /// The baseline's version of an error found while scanning its JSON.
  init(_ error: SnapshotDecodingError) {
    self.init(problem: error.problem, location: error.location)
  }

  public var description: String {
    location?.placing(problem) ?? problem
  }
}
