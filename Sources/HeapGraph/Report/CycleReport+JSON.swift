extension CycleReport {
  /// The value of the `format` field of a JSON report.
  public static let jsonFormatName = "swift-leak-report"
  /// The version of the JSON report schema (`Documentation/schemas/leak-report-v1.schema.json`).
  public static let jsonVersion = 1

  /// The report for machines, in the documented `swift-leak-report` schema, version 1, with the
  /// `leaks` and `survivors` members of `analysis` when one is given. Keys are written in a fixed
  /// order, so equal reports give equal bytes.
  ///
  /// ```text
  /// {
  ///   "format": "swift-leak-report",
  ///   "version": 1,
  ///   "summary": {"objects": 2, "references": 2, "strongReferences": 2, "components": 1, "cyclesFound": 1, "cyclesListed": 1, "incompleteComponents": 0},
  ///   "settings": {"maxCycleLength": 20, "maxCyclesPerComponent": 100},
  ///   "components": [
  ///     {"index": 1, "objects": 2, "firstObject": 1, "cyclesFound": 1, "cyclesListed": 1, "cyclesNotListed": 0, "complete": true}
  ///   ],
  ///   "cycles": [
  ///     {"component": 1, "length": 2, "fingerprint": "5d3f0e61c1a2b3c4", "description": "A.b -> B.a -> A", "elements": [
  ///       {"object": 1, "type": "A", "reference": "b"},
  ///       {"object": 2, "type": "B", "reference": "a"}
  ///     ]}
  ///   ]
  /// }
  /// ```
  public func renderJSON(with analysis: LeakAnalysis? = nil) -> String {
    var writer = JSONWriter(reservingCapacity: 1024 + components.count * 160)
    writer.beginObject(multiline: true)
    writer.field("format", Self.jsonFormatName)
    writer.field("version", Self.jsonVersion)
    writer.key("snapshot")
    writer.beginObject()
    writer.field("tool", metadata.tool)
    writer.field("createdAt", metadata.createdAt)
    writer.field("process", metadata.process)
    writer.endObject()
    writer.key("summary")
    writer.beginObject()
    writer.field("objects", objectCount)
    writer.field("references", referenceCount)
    writer.field("strongReferences", strongReferenceCount)
    writer.field("components", components.count)
    writer.field("cyclesFound", foundCycleCount)
    writer.field("cyclesListed", components.reduce(0) { $0 + $1.cycles.count })
    writer.field("incompleteComponents", components.filter { !$0.isComplete }.count)
    writer.endObject()
    writer.key("settings")
    writer.beginObject()
    writer.field("maxCycleLength", configuration.maxCycleLength)
    writer.field("maxCyclesPerComponent", configuration.maxCyclesPerComponent)
    writer.endObject()

    writer.key("components")
    writer.beginArray(multiline: true)
    for (index, component) in components.enumerated() {
      writer.beginObject()
      writer.field("index", index + 1)
      writer.field("objects", component.objectCount)
      writer.field("firstObject", component.smallestObjectID)
      writer.field("cyclesFound", component.foundCycleCount)
      writer.field("cyclesListed", component.cycles.count)
      writer.field("cyclesNotListed", component.unlistedCycleCount)
      writer.field("complete", component.isComplete)
      writer.endObject()
    }
    writer.endArray()

    writer.key("cycles")
    writer.beginArray(multiline: true)
    for (index, component) in components.enumerated() {
      for cycle in component.cycles {
        writer.beginObject()
        writer.field("component", index + 1)
        writer.field("length", cycle.length)
        writer.field("fingerprint", cycle.fingerprint.description)
        writer.field("description", cycle.description)
        writer.key("elements")
        writer.beginArray(multiline: true)
        for element in cycle.elements {
          writer.beginObject()
          writer.field("object", element.objectID)
          writer.field("type", element.typeName)
          if let address = element.address { writer.field("address", address: address) }
          writer.field("reference", element.reference)
          if !element.allocationSite.isEmpty {
            writer.key("allocationSite")
            element.allocationSite.write(into: &writer)
          }
          writer.endObject()
        }
        writer.endArray()
        writer.endObject()
      }
    }
    writer.endArray()
    analysis?.write(into: &writer)
    writer.endObject()
    return writer.documentText
  }
}
