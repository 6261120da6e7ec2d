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
  ///     {"id": 1, "type": "MyApp.Feed", "address": "0x7f3a10"}
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
    writer.raw("{\n  ")
    writer.key("format")
    writer.string(HeapSnapshot.formatName)
    writer.raw(",\n  ")
    writer.key("version")
    writer.integer(HeapSnapshot.supportedVersions.upperBound)
    writer.raw(",\n  ")
    writer.key("metadata")
    writeMetadata(into: &writer)
    writer.raw(",\n  ")

    writer.key("objects")
    writer.raw("[")
    for index in 0..<objectCount {
      writer.raw(index == 0 ? "\n    {" : ",\n    {")
      writer.key("id")
      writer.integer(objectIDs[index])
      writer.raw(", ")
      writer.key("type")
      writer.string(typeNames[objectTypes[index]])
      if objectAddresses[index] != 0 {
        writer.raw(", ")
        writer.key("address")
        writer.hexAddress(objectAddresses[index])
      }
      if objectSizes[index] >= 0 {
        writer.raw(", ")
        writer.key("size")
        writer.integer(objectSizes[index])
      }
      if objectGenerations[index] != Int64.min {
        writer.raw(", ")
        writer.key("generation")
        writer.integer(objectGenerations[index])
      }
      if objectStacks[index] >= 0 {
        writer.raw(", ")
        writer.key("stack")
        writer.integer(stacks[Int(objectStacks[index])].id)
      }
      writer.raw("}")
    }
    writer.raw(objectCount == 0 ? "],\n  " : "\n  ],\n  ")

    writer.key("references")
    writer.raw("[")
    for index in 0..<referenceCount {
      writer.raw(index == 0 ? "\n    {" : ",\n    {")
      writer.key("from")
      writer.integer(objectIDs[Int(referenceSources[index])])
      writer.raw(", ")
      writer.key("to")
      writer.integer(objectIDs[Int(referenceTargets[index])])
      if referenceLabels[index] >= 0 {
        writer.raw(", ")
        writer.key("label")
        writer.string(labels[referenceLabels[index]])
      }
      writer.raw(", ")
      writer.key("ownership")
      writer.string(referenceOwnerships[index].rawValue)
      writer.raw("}")
    }
    writer.raw(referenceCount == 0 ? "],\n  " : "\n  ],\n  ")

    writer.key("roots")
    writer.raw("[")
    for (index, root) in roots.enumerated() {
      writer.raw(index == 0 ? "\n    {" : ",\n    {")
      writer.key("object")
      writer.integer(root.object)
      writer.raw(", ")
      writer.key("kind")
      writer.string(root.kind)
      if let label = root.label {
        writer.raw(", ")
        writer.key("label")
        writer.string(label)
      }
      writer.raw("}")
    }
    writer.raw(roots.isEmpty ? "],\n  " : "\n  ],\n  ")

    writer.key("stacks")
    writer.raw("[")
    for (index, stack) in stacks.enumerated() {
      writer.raw(index == 0 ? "\n    {" : ",\n    {")
      writer.key("id")
      writer.integer(stack.id)
      writer.raw(", ")
      writer.key("frames")
      writer.raw("[")
      for (frameIndex, frame) in stack.frames.enumerated() {
        if frameIndex > 0 { writer.raw(", ") }
        frame.write(into: &writer)
      }
      writer.raw("]}")
    }
    writer.raw(stacks.isEmpty ? "]\n}\n" : "\n  ]\n}\n")
    return writer.bytes
  }

  private func writeMetadata(into writer: inout JSONWriter) {
    writer.raw("{")
    var separator: StaticString = ""
    if let tool = metadata.tool {
      writer.key("tool")
      writer.string(tool)
      separator = ", "
    }
    if let createdAt = metadata.createdAt {
      writer.raw(separator)
      writer.key("createdAt")
      writer.string(createdAt)
      separator = ", "
    }
    if let process = metadata.process {
      writer.raw(separator)
      writer.key("process")
      writer.string(process)
    }
    writer.raw("}")
  }
}

extension StackFrame {
  /// Writes the frame as a JSON object with the fields that are known.
  func write(into writer: inout JSONWriter) {
    writer.raw("{")
    var separator: StaticString = ""
    if let pc {
      writer.key("pc")
      writer.hexAddress(pc)
      separator = ", "
    }
    if let symbol {
      writer.raw(separator)
      writer.key("symbol")
      writer.string(symbol)
      separator = ", "
    }
    if let file {
      writer.raw(separator)
      writer.key("file")
      writer.string(file)
      separator = ", "
    }
    if let line {
      writer.raw(separator)
      writer.key("line")
      writer.integer(line)
      separator = ", "
    }
    if let column {
      writer.raw(separator)
      writer.key("column")
      writer.integer(column)
    }
    writer.raw("}")
  }
}
