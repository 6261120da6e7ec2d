extension HeapSnapshot {
  /// The snapshot in the JSON format, version 1: one record per line, fields in a fixed order,
  /// so that equal snapshots give equal bytes and files diff well.
  ///
  /// ```text
  /// {
  ///   "format": "swift-heap-snapshot",
  ///   "version": 1,
  ///   "metadata": {"tool": "swift-leak-detector"},
  ///   "objects": [
  ///     {"id": 1, "type": "MyApp.Feed", "kind": "class", "address": "0x7f3a10"}
  ///   ],
  ///   "references": [
  ///     {"from": 1, "to": 1, "label": "owner", "ownership": "strong"}
  ///   ],
  ///   "roots": [],
  ///   "stacks": []
  /// }
  /// ```
  public func jsonBytes() -> [UInt8] {
    var writer = JSONWriter(reservingCapacity: 128 + objectCount * 64 + referenceCount * 64)
    writer.beginObject(multiline: true)
    writer.field("format", HeapSnapshot.formatName)
    writer.field("version", HeapSnapshot.supportedVersions.upperBound)
    writer.key("metadata")
    metadata.write(into: &writer)

    writer.key("objects")
    writer.beginArray(multiline: true)
    for index in 0..<objectCount {
      writer.beginObject()
      writer.field("id", objectIDs[index])
      writer.field("type", typeNames[objectTypes[index]])
      if let kind = objectKinds[index] { writer.field("kind", kind.rawValue) }
      if objectAddresses[index] != 0 { writer.field("address", address: objectAddresses[index]) }
      if objectSizes[index] >= 0 { writer.field("size", objectSizes[index]) }
      if objectGenerations[index] != Int64.min { writer.field("generation", objectGenerations[index]) }
      if objectStacks[index] >= 0 { writer.field("stack", stacks[Int(objectStacks[index])].id) }
      writer.endObject()
    }
    writer.endArray()

    writer.key("references")
    writer.beginArray(multiline: true)
    for index in 0..<referenceCount {
      writer.beginObject()
      writer.field("from", objectIDs[Int(referenceSources[index])])
      writer.field("to", objectIDs[Int(referenceTargets[index])])
      if referenceLabels[index] >= 0 { writer.field("label", labels[referenceLabels[index]]) }
      writer.field("ownership", referenceOwnerships[index].rawValue)
      writer.endObject()
    }
    writer.endArray()

    writer.key("roots")
    writer.beginArray(multiline: true)
    for root in roots {
      writer.beginObject()
      writer.field("object", root.object)
      writer.field("kind", root.kind.rawValue)
      if let label = root.label { writer.field("label", label) }
      writer.endObject()
    }
    writer.endArray()

    writer.key("stacks")
    writer.beginArray(multiline: true)
    for stack in stacks {
      writer.beginObject()
      writer.field("id", stack.id)
      writer.key("frames")
      stack.frames.write(into: &writer)
      writer.endObject()
    }
    writer.endArray()
    writer.endObject()
    return writer.finishDocument()
  }
}

extension HeapSnapshot.Metadata {
  /// Writes the `metadata` object: the sentences of the diagnostics in `diagnostics`, their
  /// kinds and fields in `diagnosticRecords` when any has one, and the process's `memory` when recorded.
  func write(into writer: inout JSONWriter) {
    writer.beginObject()
    if let tool { writer.field("tool", tool) }
    if let createdAt { writer.field("createdAt", createdAt) }
    if let process { writer.field("process", process) }
    if let processID { writer.field("processID", processID) }
    if let arguments {
      writer.key("arguments")
      writer.beginArray()
      for argument in arguments { writer.string(argument) }
      writer.endArray()
    }
    if let captureMilliseconds { writer.field("captureMilliseconds", captureMilliseconds) }
    if !diagnosticRecords.isEmpty {
      writer.key("diagnostics")
      writer.beginArray(multiline: true)
      for diagnostic in diagnosticRecords { writer.string(diagnostic.message) }
      writer.endArray()
    }
    if diagnosticRecords.contains(where: \.hasRecord) {
      writer.key("diagnosticRecords")
      writer.beginArray(multiline: true)
      for diagnostic in diagnosticRecords {
        writer.beginObject()
        if let kind = diagnostic.kind { writer.field("kind", kind.rawValue) }
        if let typeName = diagnostic.typeName { writer.field("type", typeName) }
        if let address = diagnostic.address { writer.field("address", address: address) }
        if let count = diagnostic.count { writer.field("count", count) }
        writer.endObject()
      }
      writer.endArray()
    }
    if let memory {
      writer.key("memory")
      memory.write(into: &writer)
    }
    writer.endObject()
  }
}

extension ProcessMemory {
  /// Writes the memory as an inline object of the fields that are known, named as in ``fields``.
  func write(into writer: inout JSONWriter) {
    writer.beginObject()
    for field in Self.fields {
      if let value = self[keyPath: field.value] { writer.field(field.name, value) }
    }
    writer.endObject()
  }
}

extension [StackFrame] {
  /// Writes the frames as an inline array of objects with the fields that are known.
  func write(into writer: inout JSONWriter) {
    writer.beginArray()
    for frame in self {
      writer.beginObject()
      if let pc = frame.pc { writer.field("pc", address: pc) }
      if let symbol = frame.symbol { writer.field("symbol", symbol) }
      if let file = frame.file { writer.field("file", file) }
      if let line = frame.line { writer.field("line", line) }
      if let column = frame.column { writer.field("column", column) }
      if frame.inlined { writer.field("inlined", true) }
      writer.endObject()
    }
    writer.endArray()
  }
}
