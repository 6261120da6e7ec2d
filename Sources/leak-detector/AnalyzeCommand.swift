import ArgumentParser
import GzipCompression
import HeapGraph

/// `leak-detector analyze SNAPSHOT`: the retain cycles, leaks and survivors of a heap snapshot.
struct AnalyzeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "analyze",
    abstract: "Find the retain cycles, leaked objects and survivors in a heap snapshot.",
    discussion: """
      Reports every elementary cycle of strong references with at most --max-cycle-length \
      objects, grouped by strongly connected component, each with a fingerprint that does not \
      depend on addresses. Weak, unowned and unmanaged references never form cycles. When the \
      snapshot lists roots, also reports leaked objects (unreachable from every root, grouped, \
      with retained sizes) and, with --expect-dead-generation, survivors with their shortest \
      retaining path.

      The report lists what to act on first: the leaked objects and survivors, then the cycles \
      of the leaked objects, then those still reachable, the package's own first (code in \
      --source-root outside its build folders, and the types of its modules). The reachable \
      cycles of dependencies' types (a framework's open connections, its caches) are counted \
      in one line by shape in text, HTML and Markdown reports; --all-cycles lists them. JSON, \
      SARIF, DOT and JUnit reports always list every cycle.

      EXIT CODES
        0  nothing found
        1  usage or input error
        2  retain cycles, leaks or survivors found

      EXAMPLES
        leak-detector analyze app.heapsnapshot.json
        leak-detector analyze app.heapsnapshot.json --format json --output cycles.json
        leak-detector analyze app.heapsnapshot.json --format html --output leaks.html
        capture-heap | leak-detector analyze -
      """
  )

  enum Format: String, ExpressibleByArgument, CaseIterable {
    case text, json, dot, sarif, junit, markdown, html

    /// Whether the report says what holds the memory (DOT has the cycles only; SARIF and JUnit
    /// the findings).
    var reportsHeldMemory: Bool {
      switch self {
      case .text, .json, .markdown, .html: true
      case .dot, .sarif, .junit: false
      }
    }
  }

  @Argument(help: "The heap snapshot to analyse (JSON or binary, format version 1); - reads it from standard input.")
  var snapshot: String

  @OptionGroup var analysis: AnalysisOptions
  @OptionGroup var cores: CoreFileOptions

  @Option(
    help:
      "The report format: text or html for people, json for machines, dot for Graphviz, sarif for code scanning, junit or markdown for CI.")
  var format: Format = .text

  @Flag(help: "List the cycles of dependencies' types still reachable too, instead of counting them in one line (text, HTML, Markdown).")
  var allCycles = false

  @OptionGroup var output: OutputOptions

  @OptionGroup var sourceRoot: SourceRootOption

  @OptionGroup var diagrams: DiagramOptions

  func run() throws {
    try output.checkNotAnInput([snapshot])
    let progress = ProgressPrinter()
    let result = try analysis.analyze(
      snapshot, ownCode: sourceRoot.ownCode, progress: progress, for: output, binaryDirectories: cores.binaryDirectories,
      summarizesHeldMemory: format.reportsHeldMemory)
    progress.report("rendering the report")
    // sarif and junit report every finding as new, as a gate without a baseline would.
    var asGate: GateOutcome { GateOutcome(findings: result.findings, baseline: Baseline()) }
    let rendered: String? =
      switch format {
      case .text: output.text(result.reportText(settingNames: .commandLine, names: output.names, allCycles: allCycles))
      case .json: nil  // written as it is rendered (below): a big heap's is tens of megabytes
      case .dot: result.cycles.renderDOT()
      case .sarif: asGate.renderSARIF(toolVersion: LeakDetectorCommand.version, sourceRoot: sourceRoot.resolved)
      case .junit: asGate.renderJUnit()
      case .markdown: result.renderMarkdown(allCycles: allCycles, settingNames: .commandLine, names: output.names)
      case .html:
        result.renderHTML(
          graphviz: try diagrams.graphviz(), compress: Gzip.compress, allCycles: allCycles, settingNames: .commandLine)
      }
    progress.finish()
    if let rendered {
      try output.emit(rendered)
    } else {
      try output.emit(streaming: result.writeJSON(to:))
    }
    if result.hasFindings { throw ExitStatus.found }
  }
}
