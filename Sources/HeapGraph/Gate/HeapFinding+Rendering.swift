extension HeapFinding {
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
}
