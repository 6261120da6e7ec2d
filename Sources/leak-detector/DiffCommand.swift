import ArgumentParser
import HeapGraph

/// `leak-detector diff OLD NEW`: what changed in memory between two snapshots.
struct DiffCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "diff",
    abstract: "Show what changed in memory between two heap snapshots.",
    discussion: """
      Compares the two snapshots per type (objects and bytes in each, new, grown, shrunk and \
      gone types, the most bytes added first), per retaining path (the shortest path from a \
      root, subscripts collapsed: `feeds[*]`), lists the objects allocated between them by type \
      and by the line that allocated them (by generation when the snapshots record one, \
      otherwise by address and type), and compares findings (retain cycles, leak groups) by \
      fingerprint. Take one snapshot, repeat a scenario a few times, take another: what grows \
      with every repetition is leaking.

      EXIT CODES
        0  nothing grew
        1  usage or input error
        2  something grew (a type with more objects, a new or growing finding)
      """
  )

  enum Format: String, ExpressibleByArgument, CaseIterable {
    case text, json, html
  }

  @Argument(help: "The earlier snapshot; - reads it from standard input.")
  var old: String

  @Argument(help: "The later snapshot; - reads it from standard input (one of the two at most).")
  var new: String

  @OptionGroup var analysis: AnalysisOptions
  @OptionGroup var cores: CoreFileOptions

  @Option(help: "The report format.")
  var format: Format = .text

  @OptionGroup var output: OutputOptions

  @OptionGroup var sourceRoot: SourceRootOption

  @OptionGroup var diagrams: DiagramOptions

  func validate() throws {
    guard old != standardInputArgument || new != standardInputArgument else {
      throw ValidationError("Standard input can be read only once: name '-' as the earlier or the later snapshot, not both.")
    }
  }

  func run() throws {
    try output.checkNotAnInput([old, new])
    let progress = ProgressPrinter()
    let before = try analysis.analyze(
      old, ownCode: sourceRoot.ownCode, progress: progress, for: output, binaryDirectories: cores.binaryDirectories)
    let after = try analysis.analyze(
      new, ownCode: sourceRoot.ownCode, progress: progress, for: output, binaryDirectories: cores.binaryDirectories)
    progress.report("comparing")
    let diff = HeapDiff(old: before, new: after)
    let rendered =
      switch format {
      case .text: output.text(diff.reportText(old: inputName(old), new: inputName(new), names: output.names))
      case .json: diff.renderJSON(old: inputName(old), new: inputName(new))
      case .html: diff.renderHTML(old: inputName(old), new: inputName(new), graphviz: try diagrams.graphviz())
      }
    progress.finish()
    try output.emit(rendered)
    if diff.hasGrowth { throw ExitStatus.found }
  }
}
