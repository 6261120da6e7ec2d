import ArgumentParser
import HeapGraph

/// `leak-detector analyze SNAPSHOT`: the retain cycles of a heap snapshot.
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

      EXIT CODES
        0  no retain cycles
        1  usage or input error
        2  retain cycles, leaks or survivors found

      EXAMPLES
        leak-detector analyze app.heapsnapshot.json
        leak-detector analyze app.heapsnapshot.json --format json --output cycles.json
      """
  )

  enum Format: String, ExpressibleByArgument, CaseIterable {
    case text, json, dot, sarif, junit, markdown
  }

  @Argument(help: "The heap snapshot to analyse (JSON, format version 1).")
  var snapshot: String

  @Option(help: "The longest cycle to report, in objects (closure contexts and boxes count).")
  var maxCycleLength: Int = CycleFinder.Configuration.defaultMaxCycleLength

  @Option(help: "How many cycles to list per strongly connected component; the rest are counted.")
  var maxCyclesPerComponent: Int = CycleFinder.Configuration.defaultMaxCyclesPerComponent

  @Option(help: "The report format: text for people, json for machines, dot for Graphviz, sarif for code scanning, junit or markdown for CI.")
  var format: Format = .text

  @Option(help: "Write the report to this file (atomically) instead of standard output.")
  var output: String?

  @Option(
    help: ArgumentHelp(
      "Objects of this tracker generation or later should be gone: report those still reachable from a root.",
      valueName: "generation"))
  var expectDeadGeneration: Int?

  @Option(
    help: ArgumentHelp(
      "SARIF file locations are written relative to this directory (default: the current one).", valueName: "directory"))
  var sourceRoot: String?

  private func renderAsGate(_ outcome: GateOutcome) -> String {
    switch format {
    case .junit: outcome.renderJUnit()
    case .markdown: outcome.renderMarkdown(snapshots: [snapshot], baseline: "(none)")
    default: outcome.renderSARIF(
      toolVersion: LeakDetectorCommand.configuration.version, sourceRoot: resolvedSourceRoot(sourceRoot))
    }
  }

  func validate() throws {
    guard (1...10_000).contains(maxCycleLength) else {
      throw ValidationError("--max-cycle-length must be between 1 and 10000, not \(maxCycleLength).")
    }
    guard (1...1_000_000).contains(maxCyclesPerComponent) else {
      throw ValidationError("--max-cycles-per-component must be between 1 and 1000000, not \(maxCyclesPerComponent).")
    }
  }

  func run() throws {
    let progress = ProgressPrinter()
    let graph = try loadGraph(snapshot, progress: progress)
    let finder = CycleFinder(
      configuration: .init(maxCycleLength: maxCycleLength, maxCyclesPerComponent: maxCyclesPerComponent))
    let report = finder.findCycles(in: graph) { step in
      switch step {
      case .findingComponents:
        progress.report("finding strongly connected components")
      case .searchingComponents(let completed, let total):
        progress.report("searching \(total) components for cycles (\(completed * 100 / max(total, 1))%)")
      }
    }
    progress.report("finding leaked objects, survivors and retained sizes")
    let analysis = LeakAnalysis(graph: graph, expectedDead: expectDeadGeneration.map { .generation(atLeast: $0) })
    progress.report("rendering the report")
    let rendered =
      switch format {
      case .text: report.renderText() + analysis.renderText()
      case .json: report.renderJSON(with: analysis)
      case .dot: report.renderDOT()
      case .sarif, .junit, .markdown:
        // Every finding as new, as a gate without a baseline would see it.
        renderAsGate(GateOutcome(findings: HeapFinding.findings(cycles: report, analysis: analysis, graph: graph), baseline: Baseline()))
      }
    try emit(rendered, to: output)
    progress.report("done")
    if report.hasCycles || analysis.hasFindings { throw ExitCode(ExitStatus.cyclesFound.rawValue) }
  }
}
