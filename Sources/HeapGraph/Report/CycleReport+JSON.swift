extension CycleReport {
  /// Writes the cycle members of a JSON report (`snapshot`, `summary`, `settings`,
  /// `components`, `cycles`) into an open object; ``HeapAnalysis/renderJSON()`` writes the document.
  func writeMembers(into writer: inout JSONWriter) {
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
  }
}
