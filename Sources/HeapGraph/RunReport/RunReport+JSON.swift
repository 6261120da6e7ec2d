extension RunReport {
  /// The JSON run report (`leak-detector run --format json`), described by
  /// `Documentation/schemas/leak-run-v1.schema.json`: the processes checked with their capture's
  /// duration and diagnostics (counted by kind, each distinct one once with its occurrences), the
  /// processes the agent refused with why (`refused`, when there is one), the processes it checked
  /// that ended before they exited, with the signal that ended each (`endedEarly`, when there is
  /// one),
  /// every leak group with its entry, sites, tests and fingerprint, the suppressed groups with the
  /// rule that suppressed each, and, when the leaks were gated against a baseline, the gate's
  /// outcome.
  ///
  /// - Parameters:
  ///   - exitStatus: the status `run` exits with for the leaks (not the program's own).
  ///   - gate: the outcome of gating ``findings`` against a baseline, when there was one.
  public func renderJSON(exitStatus: Int32, gate: GateOutcome? = nil) -> String {
    var writer = JSONWriter()
    writer.beginObject(multiline: true)
    writer.field("format", "swift-leak-run")
    writer.field("version", 1)
    writer.field("exitStatus", Int(exitStatus))
    writer.key("processes")
    writer.beginArray(multiline: true)
    for process in processes { Self.write(process, into: &writer) }
    writer.endArray()
    if !refusals.isEmpty {
      writer.key("refused")
      writer.beginArray(multiline: true)
      for refusal in refusals {
        writer.beginObject()
        writer.field("description", refusal.process)
        writer.field("pid", Int(refusal.processID))
        writer.field("reason", refusal.reason)
        writer.endObject()
      }
      writer.endArray()
    }
    if !endedEarly.isEmpty {
      writer.key("endedEarly")
      writer.beginArray(multiline: true)
      for ended in endedEarly {
        writer.beginObject()
        writer.field("description", ended.process)
        writer.field("pid", Int(ended.processID))
        if let signal = ended.signal { writer.field("signal", Int(signal.number)) }
        if ended.startedByCheckedProcess { writer.field("startedByCheckedProcess", true) }
        writer.field("reason", ended.reason)
        writer.endObject()
      }
      writer.endArray()
    }
    writer.key("leaks")
    writer.beginArray(multiline: true)
    for leak in leaks {
      writer.beginObject(multiline: true)
      Self.write(leak, into: &writer)
      writer.endObject()
    }
    writer.endArray()
    writer.key("suppressed")
    writer.beginArray(multiline: true)
    for (leak, rule) in suppressed {
      writer.beginObject(multiline: true)
      Self.write(leak, into: &writer)
      writer.key("rule")
      writer.beginObject()
      writer.field("kind", rule.kind.rawValue)
      writer.field("pattern", rule.pattern)
      writer.field("origin", rule.origin)
      if let reason = rule.reason { writer.field("reason", reason) }
      writer.endObject()
      writer.endObject()
    }
    writer.endArray()
    if let gate {
      writer.key("gate")
      writer.beginObject(multiline: true)
      for (key, findings) in [("new", gate.newFindings), ("accepted", gate.acceptedFindings)] as [(StaticString, [HeapFinding])] {
        writer.key(key)
        writer.beginArray(multiline: true)
        for finding in findings { finding.write(into: &writer) }
        writer.endArray()
      }
      writer.key("fixed")
      writer.beginArray()
      for fingerprint in gate.fixedFingerprints { writer.string(fingerprint) }
      writer.endArray()
      writer.endObject()
    }
    writer.endObject()
    return writer.finishDocumentText()
  }

  /// One process: its description and pid, its objects, what leaked, how long its capture took,
  /// and its diagnostics.
  private static func write(_ process: Process, into writer: inout JSONWriter) {
    writer.beginObject(multiline: true)
    writer.field("description", process.description)
    if let processID = process.processID { writer.field("pid", Int(processID)) }
    writer.field("objects", process.objectCount)
    writer.field("leaked", process.leakedObjectCount)
    if let duration = process.captureDuration { writer.field("captureMilliseconds", Int((duration.seconds * 1000).rounded())) }
    writer.key("diagnosticCounts")
    writer.beginArray(multiline: !process.diagnostics.isEmpty)
    for (kind, count) in process.diagnosticCounts.sorted(by: { $0.key < $1.key }) {
      writer.beginObject()
      writer.field("kind", kind)
      writer.field("count", count)
      writer.endObject()
    }
    writer.endArray()
    writer.key("diagnostics")
    writer.beginArray(multiline: !process.diagnostics.isEmpty)
    for repeated in process.distinctDiagnostics {
      let diagnostic = repeated.diagnostic
      writer.beginObject()
      writer.field("kind", diagnostic.kind?.rawValue)
      writer.field("message", diagnostic.message)
      if let typeName = diagnostic.typeName { writer.field("type", typeName) }
      writer.field("occurrences", repeated.occurrences)
      writer.endObject()
    }
    writer.endArray()
    writer.endObject()
  }

  /// A source location: `key: {"function": …, "file": …, "line": …}`.
  private static func write(_ frame: StackFrame, as key: StaticString, into writer: inout JSONWriter) {
    writer.key(key)
    writer.beginObject()
    writer.siteFields(frame)
    writer.endObject()
  }

  /// The fields of one group: what it is, its entry with each object's allocation
  /// site, the package's line that made it, the tests that allocated it and the processes it was found in.
  private static func write(_ leak: Leak, into writer: inout JSONWriter) {
    writer.field("fingerprint", leak.fingerprint.description)
    writer.field("summary", leak.summary)
    writer.field("instances", leak.instanceCount)
    writer.field("objects", leak.objectCount)
    writer.field("retainedBytes", leak.retainedSize)
    if leak.isThroughTestCode { writer.field("throughTestCode", true) }
    writer.key("entry")
    writer.beginArray(multiline: true)
    for member in leak.members {
      writer.beginObject()
      writer.field("type", member.typeName)
      writer.field("kind", member.kind.rawValue)
      if let reference = member.reference { writer.field("reference", reference) }
      if let site = member.site { write(site, as: "site", into: &writer) }
      writer.endObject()
    }
    writer.endArray()
    if let ownSite = leak.ownSite { write(ownSite, as: "ownSite", into: &writer) }
    writer.key("tests")
    writer.beginArray()
    for test in leak.tests { writer.string(test) }
    writer.endArray()
    writer.key("processes")
    writer.beginArray()
    for process in leak.processes { writer.string(process) }
    writer.endArray()
  }
}
