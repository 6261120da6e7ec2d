extension HeapGrowth {
  /// The value of the `format` field of a JSON growth report.
  public static let jsonFormatName = "swift-leak-growth"
  /// The version of its schema (`Documentation/schemas/leak-growth-v1.schema.json`).
  public static let jsonVersion = 1

  /// The report for machines: the snapshots compared, and a `growing` array with one entry per
  /// finding (empty when nothing grew), each with its counts and bytes per snapshot, what its
  /// objects hold (`holds`, when they hold objects that grew with them) and the lines that added
  /// its objects.
  ///
  /// ```text
  /// {
  ///   "format": "swift-leak-growth",
  ///   "version": 1,
  ///   "settings": {"steps": 3, "minimumGrowingSteps": 3},
  ///   "snapshots": [ {"name": "s1.json", "process": "Server (pid 42)", "objects": 10, "bytes": 640}, … ],
  ///   "growing": [
  ///     {"kind": "path", "fingerprint": "…", "summary": "global Cache.shared: …", "origin": "global Cache.shared",
  ///      "growing": {"type": "Cache", "reference": "entries[*]"}, "counts": [1, 2, 3, 4], "bytes": [48, 96, 144, 192],
  ///      "addedAt": [{"function": "Server.handle(path:)", "file": "Server.swift", "line": 12, "count": 3}]},
  ///     {"kind": "path", …, "summary": "global App.bus: Bus.handlers[*] -> closure #1 in App.subscribe()",
  ///      "holds": [{"type": "App.Listener", "counts": [1, 2, 3, 4]}], …}
  ///   ],
  ///   "growingTypes": [ {"type": "Response", "counts": [1, 2, 3, 4], "bytes": [48, 96, 144, 192]} ]
  /// }
  /// ```
  public func renderJSON(snapshots: [String]) -> String {
    var writer = JSONWriter()
    writer.beginObject(multiline: true)
    writer.field("format", Self.jsonFormatName)
    writer.field("version", Self.jsonVersion)
    writer.key("settings")
    writer.beginObject()
    writer.field("steps", snapshotCount - 1)
    writer.field("minimumGrowingSteps", minimumGrowingSteps)
    writer.endObject()
    writer.key("snapshots")
    writer.beginArray(multiline: true)
    for (index, total) in totals.enumerated() {
      writer.beginObject()
      writer.field("name", index < snapshots.count ? snapshots[index] : "snapshot \(index + 1)")
      writer.field("process", metadata[index].process)
      writer.field("objects", total.objects)
      writer.field("bytes", total.bytes)
      if let memory = metadata[index].memory {
        writer.key("memory")
        memory.write(into: &writer)
      }
      writer.endObject()
    }
    writer.endArray()
    if let memory {
      writer.key("memoryGrowth")
      writer.beginObject()
      writer.field("cause", memory.cause.rawValue)
      writer.field("summary", memory.summary)
      writer.endObject()
    }
    writer.key("growing")
    writer.beginArray(multiline: true)
    for finding in findings {
      writer.beginObject()
      writer.field("kind", finding.kind.rawValue)
      writer.field("fingerprint", finding.fingerprint.description)
      writer.field("summary", finding.summary)
      if let origin = finding.origin { writer.field("origin", origin) }
      if let growing = finding.growing {
        writer.key("growing")
        writer.beginObject()
        writer.field("type", growing.typeName)
        writer.field("reference", growing.reference)
        writer.endObject()
      }
      if finding.growsInSize { writer.field("growsInSize", true) }
      Self.write(finding.counts, as: "counts", into: &writer)
      Self.write(finding.bytes, as: "bytes", into: &writer)
      if !finding.holds.isEmpty {
        writer.key("holds")
        writer.beginArray()
        for held in finding.holds {
          writer.beginObject()
          writer.field("type", held.typeName)
          Self.write(held.counts, as: "counts", into: &writer)
          writer.endObject()
        }
        writer.endArray()
      }
      writer.siteCounts("addedAt", finding.addedAt)
      writer.endObject()
    }
    writer.endArray()
    writer.key("growingTypes")
    writer.beginArray(multiline: true)
    for type in growingTypes {
      writer.beginObject()
      writer.field("type", type.typeName)
      Self.write(type.counts, as: "counts", into: &writer)
      Self.write(type.bytes, as: "bytes", into: &writer)
      writer.endObject()
    }
    writer.endArray()
    writer.endObject()
    return writer.finishDocumentText()
  }

  private static func write(_ values: [Int], as key: StaticString, into writer: inout JSONWriter) {
    writer.key(key)
    writer.beginArray()
    for value in values { writer.integer(value) }
    writer.endArray()
  }
}
