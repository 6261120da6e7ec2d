#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The leaks a project has accepted, keyed by fingerprint: what a CI gate compares against.
///
/// ```json
/// {
///   "accepted" : {
///     "c69426e4d2ea887e" : {
///       "kind" : "cycle",
///       "reason" : "known, issue #12",
///       "summary" : "App.Cache.entries[\"a\"] -> App.Entry.owner -> App.Cache"
///     }
///   },
///   "formatVersion" : 1
/// }
/// ```
public struct Baseline: Sendable, Hashable, Encodable {
  /// One accepted finding.
  public struct Entry: Sendable, Hashable, Encodable {
    public var kind: String
    public var summary: String
    /// Why it is accepted; edit it to say so.
    public var reason: String

    public init(kind: String, summary: String, reason: String) {
      self.kind = kind
      self.summary = summary
      self.reason = reason
    }
  }

  /// The format version this library reads and writes.
  public static let supportedFormatVersion = 1

  public var formatVersion: Int
  /// Accepted findings by fingerprint (16 lowercase hexadecimal digits).
  public var accepted: [String: Entry]

  public init(accepted: [String: Entry] = [:]) {
    formatVersion = Self.supportedFormatVersion
    self.accepted = accepted
  }

  /// A baseline accepting every finding, keeping the reasons already written for those it had;
  /// the others get `reasonForNew` (the CLI asks people to replace it with theirs).
  public init(accepting findings: [HeapFinding], previous: Baseline?, reasonForNew: String = "") {
    self.init()
    for finding in findings {
      let key = finding.fingerprint.description
      accepted[key] = Entry(
        kind: finding.kind.rawValue, summary: finding.summary,
        reason: previous?.accepted[key]?.reason ?? reasonForNew)
    }
  }

  /// The baseline as JSON with sorted keys, so that it diffs well.
  public func jsonBytes() -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    return Array((try? encoder.encode(self)) ?? Data()) + [UInt8(ascii: "\n")]
  }
}
