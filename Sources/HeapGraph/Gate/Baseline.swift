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
public struct Baseline: Sendable, Hashable, Codable {
  /// One accepted finding.
  public struct Entry: Sendable, Hashable, Codable {
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

  public var formatVersion: Int
  /// Accepted findings by fingerprint (16 hexadecimal digits).
  public var accepted: [String: Entry]

  public init(accepted: [String: Entry] = [:]) {
    formatVersion = 1
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

  /// Reads a baseline file's bytes.
  ///
  /// - Throws: a message naming the problem (invalid JSON, unsupported format version, a key
  ///   that is not a fingerprint).
  public init(jsonBytes: [UInt8]) throws(BaselineError) {
    let decoded: Baseline
    do {
      decoded = try JSONDecoder().decode(Baseline.self, from: Data(jsonBytes))
    } catch {
      throw BaselineError(message: "not a valid baseline: \(error)")
    }
    guard decoded.formatVersion == 1 else {
      throw BaselineError(message: "baseline format version \(decoded.formatVersion) is not supported (this tool reads 1)")
    }
    if let bad = decoded.accepted.keys.sorted().first(where: { Fingerprint($0) == nil }) {
      throw BaselineError(message: "\"\(bad)\" is not a fingerprint (16 hexadecimal digits)")
    }
    self = decoded
  }

  /// The baseline as JSON with sorted keys, so that it diffs well.
  public func jsonBytes() -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    return Array((try? encoder.encode(self)) ?? Data()) + [UInt8(ascii: "\n")]
  }
}

/// A baseline file that cannot be used.
public struct BaselineError: Error, Sendable, CustomStringConvertible {
  public var message: String
  public var description: String { message }
}
