extension LeakAnalysis {
  /// The leak and survivor sections of a text report.
  ///
  /// ```text
  ///
  /// Leaks: 5 objects unreachable from every root, in 2 groups
  ///   1) 1 × Vendor.Pool  (2 objects, 1,048 bytes retained; fingerprint 6a1c94cfb18afabc; first object 20)
  ///   2) 1 × Cache.entries["a"] → Entry.owner → Cache  (3 objects, 144 bytes retained; fingerprint 387510702306f2fb; first object 10)
  ///
  /// Survivors: 1 object expected dead still reachable
  ///   1) global App.shared: AppState.feeds[0] → Feed
  ///      suspect ~~~ AppState.feeds[0]; 80 bytes retained; fingerprint 1aef726e22a7cf71
  /// ```
  ///
  /// - Parameter names: how to write Swift names; by default readable, with the home module of the
  ///   analysis's own types.
  public func renderText(names: NameStyle? = nil) -> String {
    reportText(names: names).description
  }

  /// The leak and survivor sections as lines with their roles (see ``renderText(names:)``).
  package func reportText(names: NameStyle? = nil) -> ReportText {
    let names = names ?? .readable(forTypeNames: typeNames)
    var text = ReportText()
    text.append("")
    if !hasRoots {
      text.append("Leaks: the snapshot lists no roots, so leaked objects cannot be told from live ones.", as: .heading)
    } else if leakGroups.isEmpty {
      text.append("Leaks: none (every object is reachable from a root)", as: .success)
    } else {
      text.append(
        "Leaks: \(count(leakedObjectCount, "object")) unreachable from every root, in \(count(leakGroups.count, "group"))", as: .heading)
      for (index, group) in leakGroups.enumerated() {
        let entry = group.entryCycle.map(names.cycle) ?? names.type(group.summary)
        text.append(
          [
            .itemNumber(index + 1),
            ReportText.Span(
              " \(group.instanceCount) × \(entry)  (\(count(group.objectCount, "object")), \(grouped(group.retainedSize)) bytes retained; "
                + "fingerprint \(group.fingerprint); first object \(group.entryObjectIDs[0]))"),
          ], indent: 2)
      }
    }
    guard !survivors.isEmpty else { return text }
    text.append("")
    text.append("Survivors: \(count(survivors.count, "object")) expected dead still reachable", as: .heading)
    for (index, survivor) in survivors.enumerated() {
      let path = survivor.path.map(\.link)
      text.append([.itemNumber(index + 1), " \(survivor.root): \(names.chain(path))"], indent: 2)
      text.append(
        [
          "suspect ~~~ ", .suspect(names.suspect(in: path) ?? survivor.suspect),
          "; \(grouped(survivor.retainedSize)) bytes retained; fingerprint \(survivor.fingerprint)",
        ], indent: 5)
    }
    return text
  }

  /// The type names the text report shows: leak groups' and survivors'.
  var typeNames: [String] {
    leakGroups.flatMap { $0.entryCycle?.elements.map(\.typeName) ?? [$0.summary] } + survivors.flatMap { $0.path.map(\.typeName) }
  }

  /// Writes the `leaks` and `survivors` members of a JSON report.
  func write(into writer: inout JSONWriter) {
    writer.key("leaks")
    writer.beginObject(multiline: true)
    writer.field("hasRoots", hasRoots)
    writer.field("leakedObjects", leakedObjectCount)
    writer.key("groups")
    writer.beginArray(multiline: true)
    for group in leakGroups {
      writer.beginObject()
      writer.field("fingerprint", group.fingerprint.description)
      writer.field("summary", group.summary)
      writer.field("instances", group.instanceCount)
      writer.field("objects", group.objectCount)
      writer.field("retainedSize", group.retainedSize)
      writer.key("entryObjects")
      writer.beginArray()
      for id in group.entryObjectIDs { writer.integer(id) }
      writer.endArray()
      writer.endObject()
    }
    writer.endArray()
    writer.endObject()
    writer.key("survivors")
    writer.beginArray(multiline: true)
    for survivor in survivors {
      writer.beginObject()
      writer.field("fingerprint", survivor.fingerprint.description)
      writer.field("root", survivor.root)
      writer.field("suspect", survivor.suspect)
      writer.field("retainedSize", survivor.retainedSize)
      writer.key("path")
      writer.beginArray()
      for step in survivor.path {
        writer.beginObject()
        writer.field("object", step.objectID)
        writer.field("type", step.typeName)
        writer.field("reference", step.reference)
        writer.endObject()
      }
      writer.endArray()
      writer.endObject()
    }
    writer.endArray()
  }

  /// Whether the analysis found leaks or survivors.
  public var hasFindings: Bool { !leakGroups.isEmpty || !survivors.isEmpty }
}
