extension CycleReport {
  /// The value of the `format` field of a JSON report.
  public static let jsonFormatName = "swift-leak-report"
  /// The version of the JSON report schema (`Documentation/schemas/leak-report-v1.schema.json`).
  public static let jsonVersion = 1

  /// The report for machines, in the documented `swift-leak-report` schema, version 1.
  /// Keys are written in a fixed order, so equal reports give equal bytes.
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
  ///       {"object": 2, "type": "B", "reference": "a"}]}
  ///   ]
  /// }
  /// ```
  public func renderJSON() -> String {
    var writer = JSONWriter(reservingCapacity: 1024 + components.count * 160)
    let listed = components.reduce(0) { $0 + $1.cycles.count }
    writer.raw("{\n  ")
    writer.key("format")
    writer.string(Self.jsonFormatName)
    writer.raw(",\n  ")
    writer.key("version")
    writer.integer(Self.jsonVersion)
    writer.raw(",\n  ")
    writer.key("snapshot")
    writer.raw("{")
    writer.key("tool")
    writer.optionalString(metadata.tool)
    writer.raw(", ")
    writer.key("createdAt")
    writer.optionalString(metadata.createdAt)
    writer.raw(", ")
    writer.key("process")
    writer.optionalString(metadata.process)
    writer.raw("},\n  ")
    writer.key("summary")
    writer.raw("{")
    writer.key("objects")
    writer.integer(objectCount)
    writer.raw(", ")
    writer.key("references")
    writer.integer(referenceCount)
    writer.raw(", ")
    writer.key("strongReferences")
    writer.integer(strongReferenceCount)
    writer.raw(", ")
    writer.key("components")
    writer.integer(components.count)
    writer.raw(", ")
    writer.key("cyclesFound")
    writer.integer(foundCycleCount)
    writer.raw(", ")
    writer.key("cyclesListed")
    writer.integer(listed)
    writer.raw(", ")
    writer.key("incompleteComponents")
    writer.integer(components.filter { !$0.isComplete }.count)
    writer.raw("},\n  ")
    writer.key("settings")
    writer.raw("{")
    writer.key("maxCycleLength")
    writer.integer(configuration.maxCycleLength)
    writer.raw(", ")
    writer.key("maxCyclesPerComponent")
    writer.integer(configuration.maxCyclesPerComponent)
    writer.raw("},\n  ")

    writer.key("components")
    writer.raw("[")
    for (index, component) in components.enumerated() {
      writer.raw(index == 0 ? "\n    {" : ",\n    {")
      writer.key("index")
      writer.integer(index + 1)
      writer.raw(", ")
      writer.key("objects")
      writer.integer(component.objectCount)
      writer.raw(", ")
      writer.key("firstObject")
      writer.integer(component.smallestObjectID)
      writer.raw(", ")
      writer.key("cyclesFound")
      writer.integer(component.foundCycleCount)
      writer.raw(", ")
      writer.key("cyclesListed")
      writer.integer(component.cycles.count)
      writer.raw(", ")
      writer.key("cyclesNotListed")
      writer.integer(component.unlistedCycleCount)
      writer.raw(", ")
      writer.key("complete")
      writer.raw(component.isComplete ? "true" : "false")
      writer.raw("}")
    }
    writer.raw(components.isEmpty ? "],\n  " : "\n  ],\n  ")

    writer.key("cycles")
    writer.raw("[")
    var first = true
    for (index, component) in components.enumerated() {
      for cycle in component.cycles {
        writer.raw(first ? "\n    {" : ",\n    {")
        first = false
        writer.key("component")
        writer.integer(index + 1)
        writer.raw(", ")
        writer.key("length")
        writer.integer(cycle.length)
        writer.raw(", ")
        writer.key("fingerprint")
        writer.string(cycle.fingerprint.description)
        writer.raw(", ")
        writer.key("description")
        writer.string(cycle.description)
        writer.raw(", ")
        writer.key("elements")
        writer.raw("[")
        for (elementIndex, element) in cycle.elements.enumerated() {
          writer.raw(elementIndex == 0 ? "\n      {" : ",\n      {")
          writer.key("object")
          writer.integer(element.objectID)
          writer.raw(", ")
          writer.key("type")
          writer.string(element.typeName)
          if let address = element.address {
            writer.raw(", ")
            writer.key("address")
            writer.hexAddress(address)
          }
          writer.raw(", ")
          writer.key("reference")
          writer.optionalString(element.reference)
          if !element.allocationSite.isEmpty {
            writer.raw(", ")
            writer.key("allocationSite")
            writer.raw("[")
            for (frameIndex, frame) in element.allocationSite.enumerated() {
              if frameIndex > 0 { writer.raw(", ") }
              frame.write(into: &writer)
            }
            writer.raw("]")
          }
          writer.raw("}")
        }
        writer.raw("]}")
      }
    }
    writer.raw(first ? "]\n}\n" : "\n  ]\n}\n")
    return String(decoding: writer.bytes, as: UTF8.self)
  }
}
