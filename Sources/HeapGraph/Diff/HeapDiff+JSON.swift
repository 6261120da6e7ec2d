extension HeapDiff {
  /// The value of the `format` field of a JSON comparison.
  public static let jsonFormatName = "swift-heap-diff"
  /// The version of its schema (`Documentation/schemas/heap-diff-v2.schema.json`); version 1 listed
  /// only what grew.
  public static let jsonVersion = 2

  /// The comparison for machines: the two snapshots' totals, every type, path and finding that
  /// changed with its count and bytes in each snapshot, and the objects allocated between them.
  /// Names are written in full.
  ///
  /// ```text
  /// {
  ///   "format": "swift-heap-diff",
  ///   "version": 2,
  ///   "snapshots": [{"name": "before.json", "objects": 8, "bytes": 380}, {"name": "after.json", "objects": 11, "bytes": 592}],
  ///   "types": [
  ///     {"status": "grown", "type": "App.Response", "count": {"before": 2, "after": 5, "delta": 3}, "bytes": {"before": 96, "after": 240, "delta": 144}},
  ///     …
  ///   ],
  ///   "paths": [
  ///     {"status": "grown", "path": "global App.Cache.shared: App.Cache.entries[*] -> App.Response", "origin": "global App.Cache.shared",
  ///      "links": [{"type": "App.Cache", "reference": "entries[*]"}, {"type": "App.Response"}],
  ///      "count": {"before": 2, "after": 5, "delta": 3}, "bytes": {"before": 96, "after": 240, "delta": 144}},
  ///     …
  ///   ],
  ///   "allocatedBetween": {
  ///     "rule": "identityAndGeneration",
  ///     "afterGeneration": 1,
  ///     "count": 6,
  ///     "bytes": 200,
  ///     "byType": [{"type": "App.Response", "count": 3, "bytes": 144}, …],
  ///     "bySite": [{"function": "App.Server.handle() -> ()", "file": "Server.swift", "line": 12, "count": 3, "bytes": 144}, …],
  ///     "withoutSite": {"count": 2, "bytes": 32}
  ///   },
  ///   "findings": [
  ///     {"status": "new", "kind": "cycle", "fingerprint": "ce6af561eaf00022", "summary": "App.Node.next -> App.Node.previous -> App.Node",
  ///      "count": {"before": 0, "after": 1, "delta": 1}},
  ///     …
  ///   ]
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - old: how to name the earlier snapshot (its file).
  ///   - new: how to name the later snapshot.
  public func renderJSON(old: String, new: String) -> String {
    var writer = JSONWriter()
    writer.beginObject(multiline: true)
    writer.field("format", Self.jsonFormatName)
    writer.field("version", Self.jsonVersion)
    writer.key("snapshots")
    writer.beginArray()
    for (name, total) in [(old, oldTotal), (new, newTotal)] {
      writer.beginObject()
      writer.field("name", name)
      writer.field("objects", total.count)
      writer.field("bytes", total.bytes)
      writer.endObject()
    }
    writer.endArray()
    writer.key("types")
    writer.beginArray(multiline: true)
    for change in types {
      writer.beginObject()
      writer.field("status", change.status.rawValue)
      writer.field("type", change.subject)
      Self.writeAmounts(of: change, into: &writer)
      writer.endObject()
    }
    writer.endArray()
    writer.key("paths")
    writer.beginArray(multiline: true)
    for change in paths {
      writer.beginObject()
      writer.field("status", change.status.rawValue)
      writer.field("path", change.subject.description)
      writer.field("origin", change.subject.origin)
      writer.key("links")
      writer.beginArray()
      for link in change.subject.links {
        writer.beginObject()
        writer.field("type", link.typeName)
        if let reference = link.reference { writer.field("reference", reference) }
        writer.endObject()
      }
      writer.endArray()
      Self.writeAmounts(of: change, into: &writer)
      writer.endObject()
    }
    writer.endArray()
    writer.key("allocatedBetween")
    writeAllocatedBetween(into: &writer)
    writer.key("findings")
    writer.beginArray(multiline: true)
    for change in findings {
      writer.beginObject()
      writer.field("status", change.status.rawValue)
      writer.field("kind", change.subject.kind.rawValue)
      writer.field("fingerprint", change.subject.fingerprint.description)
      writer.field("summary", change.subject.summary)
      Self.write(change.before.count, change.after.count, as: "count", into: &writer)
      writer.endObject()
    }
    writer.endArray()
    writer.endObject()
    return writer.finishDocumentText()
  }

  private func writeAllocatedBetween(into writer: inout JSONWriter) {
    let between = allocatedBetween
    writer.beginObject(multiline: true)
    switch between.rule {
    case .identity:
      writer.field("rule", "identity")
    case .identityAndGeneration(let after):
      writer.field("rule", "identityAndGeneration")
      writer.field("afterGeneration", after)
    }
    writer.field("count", between.total.count)
    writer.field("bytes", between.total.bytes)
    writer.key("byType")
    writer.beginArray(multiline: true)
    for group in between.byType {
      writer.beginObject()
      writer.field("type", group.name)
      writer.field("count", group.count)
      writer.field("bytes", group.bytes)
      writer.endObject()
    }
    writer.endArray()
    writer.key("bySite")
    writer.beginArray(multiline: true)
    for group in between.bySite {
      writer.beginObject()
      if let site = group.site { writer.siteFields(site) }
      writer.field("count", group.count)
      writer.field("bytes", group.bytes)
      writer.endObject()
    }
    writer.endArray()
    writer.key("withoutSite")
    writer.beginObject()
    writer.field("count", between.withoutSite.count)
    writer.field("bytes", between.withoutSite.bytes)
    writer.endObject()
    writer.endObject()
  }

  /// `"count": {…}, "bytes": {…}`.
  private static func writeAmounts<Subject>(of change: Change<Subject>, into writer: inout JSONWriter) {
    write(change.before.count, change.after.count, as: "count", into: &writer)
    write(change.before.bytes, change.after.bytes, as: "bytes", into: &writer)
  }

  /// `"count": {"before": 1, "after": 4, "delta": 3}`.
  private static func write(_ before: Int, _ after: Int, as key: StaticString, into writer: inout JSONWriter) {
    writer.key(key)
    writer.beginObject()
    writer.field("before", before)
    writer.field("after", after)
    writer.field("delta", after - before)
    writer.endObject()
  }
}
