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

  @Argument(help: "The heap snapshots to gate; - reads one from standard input.")
  var snapshots: [String]

  @Option(help: "The baseline of accepted findings (JSON): a file, since --update-baseline writes it.")
  var baseline: String

  @OptionGroup var analysis: AnalysisOptions
  @OptionGroup var cores: CoreFileOptions

  @OptionGroup var gating: GateOptions

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
    if !gating.updateBaseline { try gating.checkNotAnInput(snapshots + [baseline]) }
    let gate = try gating.gate(
      baseline: baseline, acceptCommand: "leak-detector gate \(snapshots.joined(separator: " ")) --baseline \(baseline) --update-baseline")
    _ = try gate.read()  // a malformed baseline fails before the snapshots are read
    let progress = ProgressPrinter()
    var found: [HeapFinding] = []
    for snapshot in snapshots {
      found += try analysis.analyze(
        snapshot, ownCode: gating.sourceRoot.ownCode, progress: progress, for: gating.output, binaryDirectories: cores.binaryDirectories
      ).findings
    }
    let all = HeapFinding.merged(found)
    progress.finish()
    if gating.updateBaseline { return try gate.update(with: all) }
    let status = try gate.gate(all)
    if status != .success { throw status }
  }
}
