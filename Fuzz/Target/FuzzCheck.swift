/// Stops the fuzzer with `message` when an invariant of the pipeline does not hold, so that
/// libFuzzer records the input as a crash (a trap, as for any other finding).
func fuzzCheck(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
  if !condition() {
    fatalError("fuzz invariant broken: \(message())")
  }
}
