import ArgumentParser
import HeapGraph

/// `leak-detector diff OLD NEW`: what grew between two snapshots.
struct DiffCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "diff",
    abstract: "Show the types and leaks that grew between two heap snapshots.",
    discussion: """
      Compares live objects per type, the retaining paths that hold the objects of growing \
      types (the shortest path from a root, subscripts collapsed: `feeds[*]`), and findings \
      (retain cycles, leak groups) by fingerprint. Take one snapshot, repeat a scenario a few times, take another: what grows with every \
      repetition is leaking.

      EXIT CODES
        0  nothing grew
        1  usage or input error
        2  something grew
      """
  )

  enum Format: String, ExpressibleByArgument, CaseIterable {
    case text, json
  }

  @Argument(help: "The earlier snapshot.")
  var old: String

  @Argument(help: "The later snapshot.")
  var new: String

  @Option(help: "The report format.")
  var format: Format = .text

  @Option(help: "Write the report to this file (atomically) instead of standard output.")
  var output: String?

  func run() throws {
    let progress = ProgressPrinter()
    let before = try loadGraph(old, progress: progress)
    let after = try loadGraph(new, progress: progress)
    progress.report("comparing")
    let diff = HeapDiff(old: before, new: after)
    try emit(format == .json ? diff.renderJSON() : diff.renderText(old: old, new: new), to: output)
    if diff.hasGrowth { throw ExitCode(ExitStatus.cyclesFound.rawValue) }
  }
}
