import ArgumentParser
import HeapGraph

#if canImport(Glibc)
  import Glibc
#endif

/// Gating findings against a baseline file, or writing it: what `gate` does with the findings of
/// its snapshots and `run` with those of the processes it checked, so that both gate alike.
struct BaselineGate {
  /// The report formats of a gate (`gate --format`, `run --format`).
  enum Format: String, ExpressibleByArgument, CaseIterable {
    case text, json, sarif, junit, markdown, html
  }

  /// The baseline file.
  var path: String
  var format: Format
  var output: OutputOptions
  /// The reports written beside the one in ``format`` (`--report`).
  var reports: [ReportDestination] = []
  var sourceRoot: String?
  /// The command that accepts the current findings, for messages.
  var acceptCommand: String
  /// How an HTML report draws cycles (``DiagramOptions/graphviz()``).
  var graphviz: ((String) -> String?)? = nil

  /// The reason written for newly accepted findings, for people to replace.
  static let placeholderReason = "accepted by --update-baseline; say why"

  /// Writes the baseline from `findings`, keeping the reasons of findings it already accepts.
  func update(with findings: [HeapFinding]) throws {
    let updated = Baseline(accepting: findings, previous: try read(), reasonForNew: Self.placeholderReason)
    try createParentDirectories(of: path)
    try writeFile(updated.jsonBytes(), to: path)
    standardError.write("leak-detector: wrote \(updated.accepted.count) accepted findings to \(path)\n")
  }

  /// Compares `findings` with the baseline, emits the report (and each `--report`), and returns the exit status
  /// (``ExitStatus/baselineMissing`` without writing a report when the file does not exist).
  /// `json` writes the JSON report instead of the gate's own (`run` writes its run report, with
  /// the outcome in it); `uncheckedProcesses` says which processes were not checked, with why.
  func gate(_ findings: [HeapFinding], uncheckedProcesses: [String] = [], json: ((GateOutcome, ExitStatus) -> String)? = nil)
    throws -> ExitStatus
  {
    guard let existing = try read() else {
      standardError.write("leak-detector: error: no baseline at \(path); create it with:\n  \(acceptCommand)\n")
      return .baselineMissing
    }
    var outcome = GateOutcome(findings: findings, baseline: existing)
    outcome.uncheckedProcesses = uncheckedProcesses
    let status = ExitStatus(outcome.verdict)
    let text = outcome.reportText(baseline: path, acceptCommand: acceptCommand, names: output.names)
    func rendered(_ format: Format) -> String {
      switch format {
      case .text: text.description
      case .json: json?(outcome, status) ?? outcome.renderJSON(exitStatus: status.rawValue)
      case .sarif: outcome.renderSARIF(toolVersion: LeakDetectorCommand.version, sourceRoot: sourceRoot)
      case .junit: outcome.renderJUnit()
      case .markdown: outcome.renderMarkdown(acceptCommand: acceptCommand, names: output.names)
      case .html: outcome.renderHTML(baseline: path, acceptCommand: acceptCommand, graphviz: graphviz)
      }
    }
    try output.emit(format == .text ? output.text(text) : rendered(format))
    for report in reports { try writeFile(rendered(report.format), to: report.path) }
    if format != .text && status != .success {
      standardError.write(outcome.renderText(baseline: path, acceptCommand: acceptCommand))
    }
    return status
  }

  /// The baseline, or `nil` when the file does not exist; any other problem (a directory, no
  /// permission, malformed content) is an input error naming the file.
  func read() throws -> Baseline? {
    var status = stat()
    if !path.isEmpty && stat(path, &status) != 0 && errno == ENOENT { return nil }
    let bytes = try readFile(path)
    do {
      return try Baseline(jsonBytes: bytes)
    } catch {
      throw InputFailure(message: "\(path): \(error.description); fix it or delete it and run with --update-baseline")
    }
  }
}
