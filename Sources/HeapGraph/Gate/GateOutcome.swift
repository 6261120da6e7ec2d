/// What a CI gate decides: findings not in the baseline fail the build, accepted ones pass, and
/// accepted fingerprints no longer found mean the baseline can be tightened.
///
/// ```swift
/// let outcome = GateOutcome(findings: analysis.findings, baseline: baseline)
/// print(outcome.renderText(baseline: "Baselines/leaks.json", acceptCommand: accept), terminator: "")
/// ```
/// ```text
/// 4 new findings (not in the baseline Baselines/leaks.json):
/// Names from App are written without their module.
///   cycle ec82309748476178  Feed.onUpdate → closure #1 in Feed.load().capture #0: Feed → Feed
///     allocated at Screen.show() (Screen.swift:14)
///   …
/// Fix them, or accept them with:
///   leak-detector gate app.json --baseline Baselines/leaks.json --update-baseline
/// and write the reason for each in the baseline.
/// 1 accepted finding no longer found (fixed): 00000000000000ff.
/// Tighten the baseline with:
///   leak-detector gate app.json --baseline Baselines/leaks.json --update-baseline
/// ```
public struct GateOutcome: Sendable, Hashable {
  /// The gate's decision.
  public enum Verdict: Sendable, Hashable {
    /// No new findings, and every accepted one is still present.
    case passed
    /// Findings the baseline does not accept: the build should fail.
    case newFindings
    /// No new findings, but accepted ones are gone (fixed): the baseline can be tightened.
    case baselineStale
  }

  /// Findings whose fingerprint the baseline does not accept.
  public var newFindings: [HeapFinding]
  /// Findings the baseline accepts.
  public var acceptedFindings: [HeapFinding]
  /// Accepted fingerprints that no snapshot has any more.
  public var fixedFingerprints: [String]
  /// The processes that were to be checked and were not, each as a sentence with why
  /// (`Tests.xctest (pid 11) was not checked: it was killed by signal 11 …`): their findings
  /// are unknown, which every format says.
  public var uncheckedProcesses: [String] = []

  public init(findings: [HeapFinding], baseline: Baseline) {
    newFindings = findings.filter { baseline.accepted[$0.fingerprint.description] == nil }
    acceptedFindings = findings.filter { baseline.accepted[$0.fingerprint.description] != nil }
    let present = Set(findings.map(\.fingerprint.description))
    fixedFingerprints = baseline.accepted.keys.filter { !present.contains($0) }.sorted()
  }

  /// The decision: new findings first, then fixed ones.
  public var verdict: Verdict {
    if !newFindings.isEmpty { return .newFindings }
    if !fixedFingerprints.isEmpty { return .baselineStale }
    return .passed
  }
}
