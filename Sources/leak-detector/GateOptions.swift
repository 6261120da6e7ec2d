import ArgumentParser
import HeapGraph

/// The options every gating command shares (`gate`, `run --baseline`): whether to write the
/// baseline instead of gating, and the report's format, destination, source root and diagrams,
/// so that both gate alike. Each command declares `--baseline` itself: `gate` needs it, `run`
/// gates only with it.
struct GateOptions: ParsableArguments {
  @Flag(help: "Write the baseline from the findings (keeping existing reasons) instead of gating.")
  var updateBaseline = false

  @Option(help: "The report format.")
  var format: BaselineGate.Format = .text

  @OptionGroup var output: OutputOptions

  @Option(
    name: .customLong("report"),
    help: ArgumentHelp(
      "Also write the report in this format to this file (repeatable): sarif:leaks.sarif, junit:leaks.xml, html:leaks.html, markdown:summary.md, json:leaks.json, text:leaks.txt.",
      valueName: "format:file"))
  var reports: [ReportDestination] = []

  @OptionGroup var sourceRoot: SourceRootOption

  @OptionGroup var diagrams: DiagramOptions

  /// Refuses a report file (`--output` or `--report`) that is also one of the command's
  /// `inputs`, before any work is done.
  func checkNotAnInput(_ inputs: [String]) throws(InputFailure) {
    try output.checkNotAnInput(inputs)
    for report in reports {
      var alone = output
      alone.output = report.path
      try alone.checkNotAnInput(inputs)
    }
  }

  /// The gate of the baseline at `path`; `acceptCommand` is the command line that accepts the
  /// current findings, for messages.
  func gate(baseline path: String, acceptCommand: String) throws(InputFailure) -> BaselineGate {
    BaselineGate(
      path: path, format: format, output: output, reports: reports, sourceRoot: sourceRoot.resolved,
      acceptCommand: acceptCommand, graphviz: try diagrams.graphviz())
  }
}
