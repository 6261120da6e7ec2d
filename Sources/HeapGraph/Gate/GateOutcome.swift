/// What a CI gate decides: findings not in the baseline fail the build, accepted ones pass, and
/// accepted fingerprints no longer found mean the baseline can be tightened.
///
/// ```text
/// 1 new finding (not in the baseline):
///   cycle 5d3f0e61c1a2b3c4  MyApp.Feed.onUpdate -> closure #1 in MyApp.Feed.load().capture #0: Feed -> MyApp.Feed
/// 2 accepted findings still present; 1 accepted finding is gone (fixed)
/// ```
public struct GateOutcome: Sendable, Hashable {
  /// Findings whose fingerprint the baseline does not accept.
  public var newFindings: [HeapFinding]
  /// Findings the baseline accepts.
  public var acceptedFindings: [HeapFinding]
  /// Accepted fingerprints that no snapshot has any more.
  public var fixedFingerprints: [String]

  public init(findings: [HeapFinding], baseline: Baseline) {
    newFindings = findings.filter { baseline.accepted[$0.fingerprint.description] == nil }
    acceptedFindings = findings.filter { baseline.accepted[$0.fingerprint.description] != nil }
    let present = Set(findings.map(\.fingerprint.description))
    fixedFingerprints = baseline.accepted.keys.filter { !present.contains($0) }.sorted()
  }

  /// The gate's verdict as the CLI's exit status: 0 clean or only accepted findings, 2 new
  /// findings, 4 no new findings but fixed ones (update the baseline).
  public var exitStatus: Int32 {
    if !newFindings.isEmpty { return 2 }
    if !fixedFingerprints.isEmpty { return 4 }
    return 0
  }
}
