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

  @OptionGroup var sourceRoot: SourceRootOption

  @OptionGroup var diagrams: DiagramOptions

  /// The gate of the baseline at `path`; `acceptCommand` is the command line that accepts the
  /// current findings, for messages.
  func gate(baseline path: String, acceptCommand: String) throws(InputFailure) -> BaselineGate {
    BaselineGate(
      path: path, format: format, output: output, sourceRoot: sourceRoot.resolved, acceptCommand: acceptCommand,
      graphviz: try diagrams.graphviz())
  }
}
