import ArgumentParser
import HeapGraph

/// `leak-detector growth S1 S2 S3…`: what grew in every step over a series of snapshots.
struct GrowthCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "growth",
    abstract: "Show what grew in every step over three or more heap snapshots of one program.",
    discussion: """
      Take a snapshot after each round of the same work (a request, a test iteration), then \
      name them in the order they were taken. Reported: the retaining paths (from a root, \
      subscripts collapsed at every depth: `entries[*]`), leak groups and types whose count \
      grew in every step (or in --min-growing-steps of them), with their counts and bytes per \
      snapshot and the lines that allocated what was added. A cache that fills up and stays \
      full, a singleton made once and work that comes and goes are not reported.

      EXIT CODES
        0  nothing grew
        1  usage or input error
        2  something grew
      """
  )

  enum Format: String, ExpressibleByArgument, CaseIterable {
    case text, json, html, markdown
  }

  @Argument(help: "The snapshots, in the order they were taken (at least three; JSON or binary).")
  var snapshots: [String]

  @Option(
    help: ArgumentHelp(
      "Report what grew in at least this many steps (a step: one snapshot to the next), and more in the last than in the first (default: every step).",
      valueName: "steps"))
  var minGrowingSteps: Int?

  @Option(help: "The report format.")
  var format: Format = .text

  @OptionGroup var output: OutputOptions

  @OptionGroup var sourceRoot: SourceRootOption
  @OptionGroup var cores: CoreFileOptions

  func validate() throws {
    guard snapshots.count >= 3 else {
      throw ValidationError(
        "growth needs at least three snapshots (two give one step, which cannot tell growth from noise); got \(snapshots.count).")
    }
    guard !snapshots.contains(standardInputArgument) else {
      throw ValidationError("growth reads snapshots from files only, not from standard input ('-').")
    }
    if let minGrowingSteps, !(1...(snapshots.count - 1)).contains(minGrowingSteps) {
      throw ValidationError(
        "--min-growing-steps must be between 1 and \(snapshots.count - 1) (the number of steps), not \(minGrowingSteps).")
    }
  }

  func run() throws {
    try output.checkNotAnInput(snapshots)
    let progress = ProgressPrinter()
    var options = HeapAnalysis.Options(rootsAreComplete: false)
    options.ownCode = sourceRoot.ownCode
    // One snapshot at a time: only its tally is kept.
    var tallies: [HeapTally] = []
    for path in snapshots {
      let graph = try loadGraph(path, progress: progress, for: output, binaryDirectories: cores.binaryDirectories)
      tallies.append(HeapTally(analysis: HeapAnalysis(graph: graph, options: options, progress: { progress.report($0) })))
    }
    progress.report("comparing")
    let growth = HeapGrowth(tallies: tallies, minimumGrowingSteps: minGrowingSteps)
    let names = snapshots.map(inputName)
    let rendered =
      switch format {
      case .text: output.text(growth.reportText(snapshots: names, names: output.names))
      case .json: growth.renderJSON(snapshots: names)
      case .html: growth.renderHTML(snapshots: names)
      case .markdown: growth.renderMarkdown(snapshots: names, names: output.names)
      }
    progress.finish()
    try output.emit(rendered)
    if growth.hasGrowth { throw ExitStatus.found }
  }
}
