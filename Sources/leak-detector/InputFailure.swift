/// An input the command cannot use (a missing or malformed snapshot or baseline, an output
/// that cannot be written); exits with code 1.
struct InputFailure: Error {
  /// The whole message, naming the file, the problem and its location.
  var message: String
}
