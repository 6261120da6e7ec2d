import ArgumentParser
import HeapGraph

#if canImport(Glibc)
  import Glibc
#endif

/// `leak-detector gate SNAPSHOT... --baseline FILE`: the CI leak gate.
struct GateCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "gate",
    abstract: "Fail a build on leaks that are not in the baseline.",
    discussion: """
      Analyses each snapshot (retain cycles, leaked objects, survivors) and compares the \
      findings' fingerprints with the baseline, a JSON file of accepted findings, each with \
      the reason it is accepted. Fingerprints depend on types and labels only, so they are \
      stable across runs and machines.

      EXIT CODES
        0  no new findings
        1  usage or input error (unreadable snapshot or baseline, malformed baseline)
        2  new findings: not in the baseline
        4  no new findings, but accepted ones are gone (fixed): update the baseline
        5  the baseline file does not exist: create it with --update-baseline

      EXAMPLES
        leak-detector gate .build/leaks/*.json --baseline Baselines/leaks.json
        leak-detector gate app.json --baseline Baselines/leaks.json --format sarif --output leaks.sarif
        leak-detector gate app.json --baseline Baselines/leaks.json --update-baseline
      """
  )

  enum Format: String, ExpressibleByArgument, CaseIterable {
    case text, json, sarif, junit, markdown
  }

  @Argument(help: "The heap snapshots to gate; - reads one from standard input.")
  var snapshots: [String]

  @Option(help: "The baseline of accepted findings (JSON): a file, since --update-baseline writes it.")
  var baseline: String

  @Flag(help: "Write the baseline from these snapshots' findings (keeping existing reasons) instead of gating.")
  var updateBaseline = false

  @OptionGroup var analysis: AnalysisOptions

  @Option(help: "The report format.")
  var format: Format = .text

  @OptionGroup var output: OutputOptions

  @OptionGroup var sourceRoot: SourceRootOption

  /// The reason written for newly accepted findings, for people to replace.
  static let placeholderReason = "accepted by --update-baseline; say why"

  func validate() throws {
    guard !snapshots.isEmpty else { throw ValidationError("Name at least one snapshot.") }
    guard snapshots.filter({ $0 == standardInputArgument }).count <= 1 else {
      throw ValidationError("Standard input can be read only once: name '-' as one snapshot at most.")
    }
    guard baseline != standardInputArgument else {
      throw ValidationError("--baseline must name a file, not standard input: the gate reads it, and --update-baseline writes it.")
    }
  }

  func run() throws {
    if !updateBaseline { try output.checkNotAnInput(snapshots + [baseline]) }
    let existing = try readBaseline()
    let progress = ProgressPrinter()
    var found: [HeapFinding] = []
    for snapshot in snapshots {
      found += try analysis.analyze(snapshot, progress: progress).findings
    }
    let all = HeapFinding.merged(found)

    if updateBaseline {
      let updated = Baseline(accepting: all, previous: existing, reasonForNew: Self.placeholderReason)
      try writeFile(updated.jsonBytes(), to: baseline)
      standardError.write("leak-detector: wrote \(updated.accepted.count) accepted findings to \(baseline)\n")
      return
    }
    guard let existing else {
      standardError.write("leak-detector: error: no baseline at \(baseline); create it with:\n  \(acceptCommand)\n")
      throw ExitStatus.baselineMissing
    }
    let outcome = GateOutcome(findings: all, baseline: existing)
    let status = ExitStatus(outcome.verdict)
    let rendered =
      switch format {
      case .text: outcome.renderText(baseline: baseline, acceptCommand: acceptCommand)
      case .json: outcome.renderJSON(exitStatus: status.rawValue)
      case .sarif: outcome.renderSARIF(toolVersion: LeakDetectorCommand.version, sourceRoot: sourceRoot.resolved)
      case .junit: outcome.renderJUnit()
      case .markdown: outcome.renderMarkdown(acceptCommand: acceptCommand)
      }
    try output.emit(rendered)
    if format != .text && status != .success {
      standardError.write(outcome.renderText(baseline: baseline, acceptCommand: acceptCommand))
    }
    if status != .success { throw status }
  }

  /// The command that accepts the current findings, for messages.
  private var acceptCommand: String {
    "leak-detector gate \(snapshots.joined(separator: " ")) --baseline \(baseline) --update-baseline"
  }

  /// The baseline, or `nil` when the file does not exist; any other problem (a directory, no
  /// permission, malformed content) is an input error naming the file.
  private func readBaseline() throws -> Baseline? {
    var status = stat()
    if !baseline.isEmpty && stat(baseline, &status) != 0 && errno == ENOENT { return nil }
    let bytes = try readFile(baseline)
    do {
      return try Baseline(jsonBytes: bytes)
    } catch {
      throw InputFailure(message: "\(baseline): \(error.description); fix it or delete it and run with --update-baseline")
    }
  }
}
