extension HeapFinding {
  /// `findings` in the order reports for people list them: what a developer acts on first, the
  /// leak groups, then the survivors, then the retain cycles (many of which the leaks hold, or
  /// a live program still uses); the order among findings of a kind is kept.
  static func inReadingOrder(_ findings: [HeapFinding]) -> [HeapFinding] {
    func rank(_ kind: Kind) -> Int {
      switch kind {
      case .leak: 0
      case .survivor: 1
      case .cycle: 2
      }
    }
    return findings.enumerated().sorted { (rank($0.element.kind), $0.offset) < (rank($1.element.kind), $1.offset) }.map(\.element)
  }

  /// The SARIF rule of the finding's kind.
  var ruleID: String {
    switch kind {
    case .cycle: "retain-cycle"
    case .leak: "leaked-object"
    case .survivor: "survivor"
    }
  }

  /// Writes the finding as one JSON object (`kind`, `fingerprint`, `summary`, `count`, and the
  /// allocation site's `file` and `line` when known).
  func write(into writer: inout JSONWriter) {
    writer.beginObject()
    writer.field("kind", kind.rawValue)
    writer.field("fingerprint", fingerprint.description)
    writer.field("summary", summary)
    writer.field("count", count)
    if let location, let file = location.file {
      writer.field("file", file)
      if let line = location.line { writer.field("line", line) }
    }
    writer.endObject()
  }

  /// Writes the finding as one SARIF result: its rule, its level and baseline state (an error
  /// when it is new, a warning when it is new and goes through test code, a note when the
  /// baseline accepts it), its summary, its fingerprint, and its
  /// allocation site as the physical location when the file is known (relative to `sourceRoot`,
  /// a directory ending with `/`, when it lies inside).
  func writeSARIFResult(isNew: Bool, sourceRoot root: String?, into writer: inout JSONWriter) {
    writer.beginObject()
    writer.field("ruleId", ruleID)
    writer.field("level", !isNew ? "note" : isThroughTestCode ? "warning" : "error")
    writer.field("baselineState", isNew ? "new" : "unchanged")
    writer.key("message")
    writer.beginObject()
    writer.field("text", "\(count > 1 ? "\(count) × " : "")\(summary)")
    writer.endObject()
    writer.key("partialFingerprints")
    writer.beginObject()
    writer.field("leakDetectorFingerprint/v1", fingerprint.description)
    writer.endObject()
    if let location, let file = location.file {
      writer.key("locations")
      writer.beginArray()
      Self.writeSARIFLocation(file: file, line: location.line, sourceRoot: root, into: &writer)
      writer.endArray()
    }
    writer.endObject()
  }

  /// Writes a SARIF location: the file (relative to `sourceRoot` when it lies inside) and the
  /// line, when it is known.
  private static func writeSARIFLocation(file: String, line: Int?, sourceRoot root: String?, into writer: inout JSONWriter) {
    writer.beginObject()
    writer.key("physicalLocation")
    writer.beginObject()
    writer.key("artifactLocation")
    writer.beginObject()
    if let root, file.hasPrefix(root) {
      writer.field("uri", String(file.dropFirst(root.count)))
      writer.field("uriBaseId", "%SRCROOT%")
    } else {
      writer.field("uri", file)
    }
    writer.endObject()
    if let line, line > 0 {
      writer.key("region")
      writer.beginObject()
      writer.field("startLine", line)
      writer.endObject()
    }
    writer.endObject()
    writer.endObject()
  }
}
