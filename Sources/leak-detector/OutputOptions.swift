import ArgumentParser
import HeapGraph

/// Where a command writes its report.
struct OutputOptions: ParsableArguments {
  @Option(help: "Write the report to this file (atomically) instead of standard output.")
  var output: String?

  /// Writes `text` to the output file atomically, or to standard output.
  func emit(_ text: String) throws {
    guard let output else {
      standardOutput.write(text)
      return
    }
    do {
      try FileBytes.writeAtomically(Array(text.utf8), to: output)
    } catch {
      throw InputFailure(message: error.description)
    }
  }
}
