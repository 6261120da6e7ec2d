extension Baseline {
  /// Reads a baseline file's bytes.
  ///
  /// Members this version does not know are ignored, so that a later version's additions do
  /// not break it. Every problem (invalid or truncated JSON, a missing or mistyped member, an
  /// unsupported format version, a key that is not a fingerprint, a fingerprint listed twice)
  /// throws a ``BaselineError`` that names the member by its key path
  /// (`accepted.c69426e4d2ea887e.reason`) and gives the line and column.
  public init(jsonBytes: [UInt8]) throws(BaselineError) {
    let result: Result<Baseline, BaselineError> = jsonBytes.withUnsafeBufferPointer { buffer in
      Result { () throws(BaselineError) in
        var reader = BaselineJSONReader(bytes: buffer)
        return try reader.read()
      }
    }
    self = try result.get()
  }
}

/// One read of a baseline file.
private struct BaselineJSONReader: JSONRecordReading {
  var scanner: JSONScanner

  private static let expectedDocument = "a JSON object with \"formatVersion\" and \"accepted\""

  init(bytes: UnsafeBufferPointer<UInt8>) {
    scanner = JSONScanner(bytes: bytes)
    scanner.skipByteOrderMark()
  }

  mutating func read() throws(BaselineError) -> Baseline {
    guard !scanner.isAtEnd else {
      throw BaselineError(problem: "the file is empty (0 bytes): a baseline is \(Self.expectedDocument)", location: nil)
    }
    do {
      try checkFormatVersion()
      return try readDocument()
    } catch {
      throw BaselineError(error)
    }
  }

  /// Refuses a format version this library does not read before anything else is read, since
  /// the version decides what the rest means (and `accepted` sorts before `formatVersion`).
  /// Problems on the way to the version are left for `readDocument()` to report, with their
  /// full key paths.
  private func checkFormatVersion() throws(SnapshotDecodingError) {
    var lookahead = self
    var found: (version: Int64, offset: Int)?
    do {
      try lookahead.forEachMember(Self.expectedDocument) { reader, key throws(SnapshotDecodingError) in
        if key.equals("formatVersion"), found == nil {
          let start = reader.scanner.valueStart()
          found = (try reader.scanner.readInteger(), start)
        } else {
          try reader.scanner.skipValue()
        }
      }
    } catch {
      guard found != nil else { return }
    }
    guard let found, found.version != Int64(Baseline.supportedFormatVersion) else { return }
    throw scanner.failure(
      .invalidValue(
        "baseline format version \(found.version) is not supported (this tool reads \(Baseline.supportedFormatVersion))"),
      at: found.offset
    ).prefixingPath(withKey: "formatVersion")
  }

  private mutating func readDocument() throws(SnapshotDecodingError) -> Baseline {
    let start = scanner.valueStart()
    var hasFormatVersion = false
    var accepted: [String: Baseline.Entry]?
    try forEachMember(Self.expectedDocument) { reader, key throws(SnapshotDecodingError) in
      if key.equals("formatVersion") {
        _ = try reader.scanner.readInteger()
        hasFormatVersion = true
      } else if key.equals("accepted") {
        accepted = try reader.readAccepted()
      } else {
        try reader.scanner.skipValue()
      }
    }
    try scanner.expectEnd(after: "the baseline object")
    guard hasFormatVersion else { throw scanner.failure(.missingField("formatVersion"), at: start) }
    guard let accepted else { throw scanner.failure(.missingField("accepted"), at: start) }
    return Baseline(accepted: accepted)
  }

  private mutating func readAccepted() throws(SnapshotDecodingError) -> [String: Baseline.Entry] {
    var accepted: [String: Baseline.Entry] = [:]
    try forEachMember("an object of accepted findings keyed by fingerprint") { reader, key throws(SnapshotDecodingError) in
      let keyOffset = reader.scanner.offset(ofKey: key)
      let fingerprint = String(decoding: key, as: UTF8.self)
      guard Self.isFingerprint(key) else {
        throw reader.scanner.failure(
          .invalidValue("\"\(fingerprint)\" is not a fingerprint (16 lowercase hexadecimal digits)"), at: keyOffset)
      }
      guard accepted[fingerprint] == nil else {
        throw reader.scanner.failure(.invalidValue("the fingerprint \(fingerprint) is listed twice"), at: keyOffset)
      }
      accepted[fingerprint] = try reader.readEntry()
    }
    return accepted
  }

  private mutating func readEntry() throws(SnapshotDecodingError) -> Baseline.Entry {
    let start = scanner.valueStart()
    var kind: String?
    var summary: String?
    var reason: String?
    try forEachMember("an accepted finding (an object with \"kind\", \"summary\" and \"reason\")") {
      reader, key throws(SnapshotDecodingError) in
      if key.equals("kind") {
        kind = try reader.scanner.readString()
      } else if key.equals("summary") {
        summary = try reader.scanner.readString()
      } else if key.equals("reason") {
        reason = try reader.scanner.readString()
      } else {
        try reader.scanner.skipValue()
      }
    }
    guard let kind else { throw scanner.failure(.missingField("kind"), at: start) }
    guard let summary else { throw scanner.failure(.missingField("summary"), at: start) }
    guard let reason else { throw scanner.failure(.missingField("reason"), at: start) }
    return Baseline.Entry(kind: kind, summary: summary, reason: reason)
  }

  /// Whether `key` is a fingerprint as ``Fingerprint/description`` writes it: 16 lowercase
  /// hexadecimal digits (the gate compares them as text).
  private static func isFingerprint(_ key: UnsafeBufferPointer<UInt8>) -> Bool {
    key.count == 16
      && key.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
  }
}
