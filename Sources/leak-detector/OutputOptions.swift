import ArgumentParser
import HeapGraph

#if canImport(Glibc)
  import Glibc
#endif

/// Where a command writes its report, and whether a text report on a terminal is coloured.
struct OutputOptions: ParsableArguments {
  /// When a text report is coloured.
  enum ColorChoice: String, ExpressibleByArgument, CaseIterable {
    /// On a terminal, unless `NO_COLOR` is set or `TERM` is `dumb`.
    case auto
    case always
    case never
  }

  @Option(help: "Write the report to this file (atomically) instead of standard output.")
  var output: String?

  @Option(help: "Colour a text report: auto (on a terminal, unless NO_COLOR is set), always, or never.")
  var color: ColorChoice = .auto

  @Flag(help: "Write Swift names in full, as the snapshot has them, in text and Markdown reports (JSON and SARIF always do).")
  var fullNames = false

  @Flag(
    help:
      "Show the text of dictionary keys in labels (pending[\"https://…\"]); reports, and baselines written from them, show pending[…] otherwise, as they are made to be shared. Fingerprints never depend on it."
  )
  var showData = false

  /// What reports may show of `snapshot`: its dictionary keys' text elided unless `--show-data`.
  func shareable(_ snapshot: HeapSnapshot) -> HeapSnapshot {
    showData ? snapshot : snapshot.withDataRedacted()
  }

  /// How text and Markdown reports write names: in full when asked, otherwise the report's
  /// readable default (`nil`).
  var names: NameStyle? { fullNames ? .full : nil }

  /// Refuses an output file that is also one of the command's `inputs`, before any work is
  /// done: a report must not replace the snapshot or baseline it is made from.
  func checkNotAnInput(_ inputs: [String]) throws(InputFailure) {
    guard let output, let input = inputs.first(where: { $0 != standardInputArgument && isSameFile($0, output) }) else {
      return
    }
    throw InputFailure(message: "\(output): --output names an input of this command (\(input)); write the report to another file")
  }

  /// A text report as ``emit(_:)`` should write it: coloured by the roles of its lines when
  /// ``color`` says so, plain otherwise. A file is never coloured unless asked.
  func text(_ report: ReportText) -> String {
    usesColor(forTerminal: output == nil && isatty(1) == 1) ? ReportColoring.colored(report) : report.description
  }

  /// Writes `text` (a report from ``text(_:)``, or a document) to the output file atomically,
  /// or to standard output.
  func emit(_ text: String) throws(InputFailure) {
    guard let output else {
      standardOutput.write(text)
      return
    }
    try writeFile(text, to: output)
  }

  /// Writes a document that `write` hands over in pieces as it renders it, in order, to the
  /// output file atomically, or to standard output: the document is never whole in memory.
  func emit(streaming write: ((UnsafeRawBufferPointer) -> Void) -> Void) throws(InputFailure) {
    guard let output else {
      write(standardOutput.write)
      return
    }
    do {
      try FileBytes.writeAtomically(to: output, producing: write)
    } catch {
      throw InputFailure(message: error.description)
    }
  }

  /// Whether to colour, for output that is (`isTerminal`) or is not a terminal.
  func usesColor(forTerminal isTerminal: Bool) -> Bool {
    switch color {
    case .always: return true
    case .never: return false
    case .auto:
      let noColor = getenv("NO_COLOR").map { String(cString: $0) } ?? ""
      let term = getenv("TERM").map { String(cString: $0) } ?? ""
      return isTerminal && noColor.isEmpty && term != "dumb"
    }
  }
}
