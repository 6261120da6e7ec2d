extension HeapMemory {
  /// The `heldMemory` member of a JSON report: the totals, then every suspect, the retainers (with
  /// `omittedRetainers`, how many retain the least and are left out, beyond
  /// ``HeapMemory/maximumRetainers``) and every type.
  ///
  /// ```text
  /// "heldMemory": {"objects": 2005, "bytes": 232240, "leakedBytes": 32,
  ///   "suspects": [{"kind": "object", "origin": "global Cache.shared", "path": [{"type": "App.Cache", "reference": null}], "objects": 1,
  ///     "retainedBytes": 232048, "accumulation": {"origin": "global Cache.shared", "path": […], "objects": 1000, …}}],
  ///   "retainers": [{"origin": "global Cache.shared", "path": […], "objects": 1000, "retainedBytes": 232000, "retainedObjects": 2000,
  ///     "sites": [{"function": "App.Cache.fill() -> ()", "file": "/src/App/Cache.swift", "line": 12, "count": 1000}]}, …],
  ///   "types": [{"type": "App.Cache", "objects": 1, "shallowBytes": 48, "retainedBytes": 232048}, …]}
  /// ```
  func write(into writer: inout JSONWriter) {
    writer.beginObject(multiline: true)
    writer.field("objects", objectCount)
    writer.field("bytes", byteCount)
    writer.field("leakedBytes", leakedBytes)
    writer.key("suspects")
    writer.beginArray(multiline: true)
    for suspect in suspects {
      writer.beginObject()
      writer.field("kind", suspect.kind.rawValue)
      Self.write(suspect.path, into: &writer)
      writer.field("objects", suspect.objectCount)
      writer.field("retainedBytes", suspect.retainedBytes)
      if let accumulation = suspect.accumulation {
        writer.key("accumulation")
        Self.write(accumulation, into: &writer)
      }
      writer.endObject()
    }
    writer.endArray()
    writer.key("retainers")
    writer.beginArray(multiline: true)
    for retainer in retainers { Self.write(retainer, into: &writer) }
    writer.endArray()
    if omittedRetainerCount > 0 { writer.field("omittedRetainers", omittedRetainerCount) }
    writer.key("types")
    writer.beginArray(multiline: true)
    for type in types {
      writer.beginObject()
      writer.field("type", type.typeName)
      writer.field("objects", type.objectCount)
      writer.field("shallowBytes", type.shallowBytes)
      writer.field("retainedBytes", type.retainedBytes)
      writer.endObject()
    }
    writer.endArray()
    writer.endObject()
  }

  private static func write(_ retainer: Retainer, into writer: inout JSONWriter) {
    writer.beginObject()
    write(retainer.path, into: &writer)
    writer.field("objects", retainer.objectCount)
    writer.field("retainedBytes", retainer.retainedBytes)
    writer.field("retainedObjects", retainer.retainedObjects)
    writer.siteCounts("sites", retainer.sites)
    writer.endObject()
  }

  private static func write(_ path: HeapTally.Path, into writer: inout JSONWriter) {
    writer.field("origin", path.origin)
    writer.key("path")
    writer.beginArray()
    for link in path.links {
      writer.beginObject()
      writer.field("type", link.typeName)
      writer.field("reference", link.reference)
      writer.endObject()
    }
    writer.endArray()
  }
}
