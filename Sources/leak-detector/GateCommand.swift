import ArgumentParser
import HeapGraph

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
        1  usage or input error (unreadable snapshot, malformed baseline)
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

  @Argument(help: "The heap snapshots to gate.")
  var snapshots: [String]

  @Option(help: "The baseline of accepted findings (JSON).")
  var baseline: String

  @Flag(help: "Write the baseline from these snapshots' findings (keeping existing reasons) instead of gating.")
  var updateBaseline = false

  @Option(help: "The report format.")
  var format: Format = .text

  @Option(help: "Write the report to this file (atomically) instead of standard output.")
  var output: String?

  @Option(help: "The longest cycle to report, in objects.")
  var maxCycleLength: Int = CycleFinder.Configuration.defaultMaxCycleLength

  @Option(help: ArgumentHelp("Objects of this tracker generation or later should be gone.", valueName: "generation"))
  var expectDeadGeneration: Int?

  @Option(
    help: ArgumentHelp(
      "SARIF file locations are written relative to this directory (default: the current one).", valueName: "directory"))
  var sourceRoot: String?

  func validate() throws {
    guard !snapshots.isEmpty else { throw ValidationError("Name at least one snapshot.") }
    guard (1...10_000).contains(maxCycleLength) else {
      throw ValidationError("--max-cycle-length must be between 1 and 10000, not \(maxCycleLength).")
    }
  }

  func run() throws {
    let progress = ProgressPrinter()
    var found: [HeapFinding] = []
    for snapshot in snapshots {
      let graph = try loadGraph(snapshot, progress: progress)
      let cycles = CycleFinder(configuration: .init(maxCycleLength: maxCycleLength)).findCycles(in: graph)
      let analysis = LeakAnalysis(graph: graph, expectedDead: expectDeadGeneration.map { .generation(atLeast: $0) })
      found += HeapFinding.findings(cycles: cycles, analysis: analysis, graph: graph)
    }
    let all = HeapFinding.merged(found)

    var existing: Baseline?
    if let bytes = try? FileBytes.read(baseline) {
      do {
        existing = try Baseline(jsonBytes: bytes)
      } catch {
        throw InputFailure(message: "\(baseline): \(error.description); fix it or delete it and run with --update-baseline")
      }
    }
    if updateBaseline {
      let updated = Baseline(accepting: all, previous: existing)
      do {
        try FileBytes.writeAtomically(updated.jsonBytes(), to: baseline)
      } catch {
        throw InputFailure(message: error.description)
      }
      standardError.write("leak-detector: wrote \(updated.accepted.count) accepted findings to \(baseline)\n")
      return
    }
    guard let existing else {
      standardError.write(
        "leak-detector: error: no baseline at \(baseline); create it with:\n  \(GateOutcome.acceptCommand(snapshots: snapshots, baseline: baseline))\n")
      throw ExitCode(5)
    }
    let outcome = GateOutcome(findings: all, baseline: existing)
    let rendered =
      switch format {
      case .text: outcome.renderText(snapshots: snapshots, baseline: baseline)
      case .json: outcome.renderJSON()
      case .sarif: outcome.renderSARIF(
        toolVersion: LeakDetectorCommand.configuration.version, sourceRoot: resolvedSourceRoot(sourceRoot))
      case .junit: outcome.renderJUnit()
      case .markdown: outcome.renderMarkdown(snapshots: snapshots, baseline: baseline)
      }
    try emit(rendered, to: output)
    if format != .text && outcome.exitStatus != 0 {
      standardError.write(outcome.renderText(snapshots: snapshots, baseline: baseline))
    }
    if outcome.exitStatus != 0 { throw ExitCode(outcome.exitStatus) }
  }
}
