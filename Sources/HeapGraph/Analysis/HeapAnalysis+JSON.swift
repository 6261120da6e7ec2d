extension HeapAnalysis {
  /// The value of the `format` field of a JSON report.
  public static let jsonFormatName = "swift-leak-report"
  /// The version of the JSON report schema (`Documentation/schemas/leak-report-v1.schema.json`).
  public static let jsonVersion = 1

  /// The report for machines, in the documented `swift-leak-report` schema, version 1. Keys are
  /// written in a fixed order, so equal analyses give equal bytes.
  ///
  /// ```text
  /// {
  ///   "format": "swift-leak-report",
  ///   "version": 1,
  ///   "snapshot": {"tool": null, "createdAt": null, "process": null},
  ///   "summary": {"objects": 3, "references": 3, "strongReferences": 3, "components": 1, "cyclesFound": 1, "cyclesListed": 1, "incompleteComponents": 0},
  ///   "settings": {"maxCycleLength": 20, "maxCyclesPerComponent": 100},
  ///   "components": [
  ///     {"index": 1, "objects": 2, "firstObject": 1, "cyclesFound": 1, "cyclesListed": 1, "cyclesNotListed": 0, "complete": true}
  ///   ],
  ///   "cycles": [ … ],
  ///   "leaks": { … },
  ///   "survivors": [ … ],
  ///   "heldMemory": { … },
  ///   "memory": {"swiftObjectCount": 3, "residentBytes": 431996928}
  /// }
  /// ```
  ///
  /// `heldMemory`, what holds the memory (``HeapMemory``), is there when the snapshot has roots;
  /// `memory`, the process's memory at the capture, only when the snapshot recorded it.
  public func renderJSON() -> String {
    var writer = JSONWriter(reservingCapacity: 1024 + cycles.components.count * 160)
    write(into: &writer)
    return writer.finishDocumentText()
  }

  /// The report of ``renderJSON()``, the same bytes, handed to `sink` in pieces of about a
  /// megabyte as it is written: a report of tens of megabytes is never whole in memory.
  ///
  /// ```swift
  /// try FileBytes.writeAtomically(to: "report.json") { analysis.writeJSON(to: $0) }
  /// ```
  public func writeJSON(to sink: (UnsafeRawBufferPointer) -> Void) {
    withoutActuallyEscaping(sink) { sink in
      var writer = JSONWriter(streamingTo: sink)
      write(into: &writer)
      writer.finishStream()
    }
  }

  private func write(into writer: inout JSONWriter) {
    // What holds the memory is summed on the second core while the cycles and leaks are written.
    let memory = leaks.hasRoots ? ConcurrentResult { [self] in HeapMemory(analysis: self) } : nil
    writer.beginObject(multiline: true)
    writer.field("format", Self.jsonFormatName)
    writer.field("version", Self.jsonVersion)
    cycles.writeMembers(into: &writer)
    leaks.write(into: &writer)
    if let memory {
      writer.key("heldMemory")
      memory.value.write(into: &writer)
    }
    if let memory = graph.metadata.memory {
      writer.key("memory")
      memory.write(into: &writer)
    }
    writer.endObject()
  }
}
