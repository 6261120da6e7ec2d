import ArgumentParser
import HeapGraph

/// Where a command writes its report.
struct OutputOptions: ParsableArguments {
  @Option(help: "Write the report to this file (atomically) instead of standard output.")
  var output: String?

  /// Refuses an output file that is also one of the command's `inputs`, before any work is
  /// done: a report must not replace the snapshot or baseline it is made from.
  func checkNotAnInput(_ inputs: [String]) throws(InputFailure) {
    guard let output, let input = inputs.first(where: { $0 != standardInputArgument && isSameFile($0, output) }) else {
      return
    }
    throw InputFailure(message: "\(output): --output names an input of this command (\(input)); write the report to another file")
  }

  /// Writes `text` to the output file atomically, or to standard output.
  func emit(_ text: String) throws(InputFailure) {
    guard let output else {
      standardOutput.write(text)
      return
    }
    try writeFile(Array(text.utf8), to: output)
  }
}
