/// Feeds bytes to `HeapSnapshot(jsonBytes:)` and, when they parse, through everything the CLI
/// does with a snapshot: the writer round trip, `strip`, the graph, the analysis, every
/// renderer of `analyze` and `gate`, and `diff`, checking the invariants that tie them together.
///
/// Bounds keep every input cheap: cycles of at most six objects, at most eight listed per
/// component, and a small search budget per component.
struct SnapshotPipeline {
  /// The analysis options the CLI would pass.
  let analysisOptions: HeapAnalysis.Options
  /// Whether to search cycles from the first object only (as a live check does from its candidates).
  let fromFirstObject: Bool
  /// Whether `strip` keeps file names (`--drop-file-names` off).
  let keepingFileNames: Bool

  /// Takes the options from the bits of the mode byte: bits 1–2 the longest cycle (6, 5, 4 or 3
  /// objects), bits 3–4 the cycles listed per component (8, 4, 2 or 1), bit 5 survivors of
  /// generation 1 and later, bit 6 dropping file names when stripping, bit 7 a search from the
  /// first object only.
  init(options byte: UInt8) {
    let cycles = CycleFinder.Configuration(
      maxCycleLength: 6 - Int((byte >> 1) & 3),
      maxCyclesPerComponent: 8 >> Int((byte >> 3) & 3),
      stepBudgetPerComponent: 20_000,
      stepBudgetPerNode: 40)
    analysisOptions = HeapAnalysis.Options(
      cycles: cycles, expectedDead: byte & 0x20 != 0 ? .generation(atLeast: 1) : nil)
    keepingFileNames = byte & 0x40 == 0
    fromFirstObject = byte & 0x80 != 0
  }

  func run(_ bytes: [UInt8]) {
    let snapshot: HeapSnapshot
    do {
      snapshot = try HeapSnapshot(jsonBytes: bytes)
    } catch {
      _ = error.description
      _ = error.code
      return
    }
    checkRoundTrip(snapshot, "the snapshot")

    let analysis = analyze(snapshot)
    render(analysis)
    diff(analysis)

    let stripped = snapshot.stripped(keepingFileNames: keepingFileNames)
    checkRoundTrip(stripped, "the stripped snapshot")
    let strippedAnalysis = analyze(stripped)
    fuzzCheck(
      strippedAnalysis.findings.map(\.identity) == analysis.findings.map(\.identity),
      "stripping changed the findings")
  }

  /// Writes `snapshot`, reads it back, and requires an equal snapshot and a fixed point of the writer.
  private func checkRoundTrip(_ snapshot: HeapSnapshot, _ name: String) {
    let written = snapshot.jsonBytes()
    let reread: HeapSnapshot
    do {
      reread = try HeapSnapshot(jsonBytes: written)
    } catch {
      fuzzCheck(false, "\(name) as written does not read back: \(error)\n\(String(decoding: written, as: UTF8.self))")
      return
    }
    fuzzCheck(
      reread.metadata == snapshot.metadata && reread.objects == snapshot.objects
        && reread.references == snapshot.references && reread.roots == snapshot.roots && reread.stacks == snapshot.stacks,
      "\(name) read back has different contents")
    fuzzCheck(reread == snapshot, "\(name) read back is not == to the original (same contents)")
    fuzzCheck(reread.jsonBytes() == written, "writing \(name) read back gives different bytes")
  }

  private func analyze(_ snapshot: HeapSnapshot) -> HeapAnalysis {
    let graph = ObjectGraph(snapshot)
    return HeapAnalysis(
      graph: graph, options: analysisOptions, startNodes: fromFirstObject && graph.objectCount > 0 ? [0] : nil)
  }

  /// Every renderer of `analyze` and `gate`, with an empty baseline and with one that accepts
  /// every other finding plus one that is gone.
  private func render(_ analysis: HeapAnalysis) {
    _ = analysis.renderText()
    _ = analysis.renderText(settingNames: ReportSettingNames(maxCycleLength: "--a", maxCyclesPerComponent: "--b"))
    fuzzCheck(isOneJSONValue(analysis.renderJSON()), "the JSON report is not JSON")
    fuzzCheck(isLineBalancedDOT(analysis.cycles.renderDOT()), "a DOT string is not closed on its line")
    _ = analysis.cycles.renderText()
    _ = analysis.leaks.renderText()

    var partial = Baseline(
      accepting: analysis.findings.enumerated().filter { $0.offset % 2 == 0 }.map(\.element), previous: nil,
      reasonForNew: "fuzz")
    partial.accepted["00000000000000ff"] = Baseline.Entry(kind: "cycle", summary: "gone", reason: "fixed")
    for baseline in [Baseline(), partial] {
      let outcome = GateOutcome(findings: HeapFinding.merged(analysis.findings + analysis.findings), baseline: baseline)
      _ = outcome.verdict
      _ = outcome.renderText(baseline: "baseline.json", acceptCommand: "accept")
      _ = outcome.renderText(baseline: "baseline.json")
      fuzzCheck(isOneJSONValue(outcome.renderJSON(exitStatus: 2)), "the gate's JSON is not JSON")
      fuzzCheck(isOneJSONValue(outcome.renderSARIF(toolVersion: "fuzz", sourceRoot: "/src")), "SARIF is not JSON")
      fuzzCheck(isOneJSONValue(outcome.renderSARIF(toolVersion: "fuzz")), "SARIF without a source root is not JSON")
      fuzzCheck(isWellFormedXML(outcome.renderJUnit()), "JUnit XML is not well-formed")
      fuzzCheck(
        markdownTableHasRows(outcome.renderMarkdown(acceptCommand: "accept"), outcome.newFindings.count + outcome.acceptedFindings.count),
        "a finding broke the Markdown table")
    }
  }

  /// `diff` of the snapshot with itself (nothing may grow) and from an empty snapshot.
  private func diff(_ analysis: HeapAnalysis) {
    let same = HeapDiff(old: analysis, new: analysis)
    fuzzCheck(!same.hasGrowth, "a snapshot grew compared with itself")
    _ = same.renderText(old: "a.json", new: "a.json")
    fuzzCheck(isOneJSONValue(same.renderJSON(old: "a.json", new: "a.json")), "the diff's JSON is not JSON")

    let empty = HeapAnalysis(graph: ObjectGraph(HeapSnapshot.Builder().snapshot), options: analysisOptions)
    let grown = HeapDiff(old: empty, new: analysis)
    _ = grown.renderText(old: "empty.json", new: "a.json")
    fuzzCheck(isOneJSONValue(grown.renderJSON(old: "empty.json", new: "a.json")), "the diff's JSON is not JSON")
  }
}

extension HeapFinding {
  /// What stripping must not change: everything but the allocation site.
  fileprivate var identity: String { "\(kind.rawValue) \(fingerprint) \(count) \(summary)" }
}
