extension HeapMemory {
  /// How many suspects, retainers and types the text report lists (the JSON report has them all,
  /// up to ``HeapMemory/maximumRetainers`` retainers).
  static let textLimit = 5

  /// The section of a text report that says what holds the memory: the total, the leak
  /// suspects, the top retainers with the lines that allocated their objects, and the types that
  /// retain most (the example in ``HeapMemory``'s documentation). Empty when no object has a size.
  package func reportText(names: NameStyle) -> ReportText {
    var text = ReportText()
    guard byteCount > 0, !retainers.isEmpty else { return text }
    let leaked = leakedBytes > 0 ? " (\(ProcessMemory.describe(bytes: leakedBytes)) of it leaked, above)" : ""
    text.append(
      "What holds the memory: \(count(objectCount, "object")), \(ProcessMemory.describe(bytes: byteCount))\(leaked)", as: .heading)
    if !suspects.isEmpty {
      text.append("Leak suspects:")
      for (index, suspect) in suspects.prefix(Self.textLimit).enumerated() {
        text.append([.itemNumber(index + 1), " \(describe(suspect, names: names))"], indent: 2)
        if let accumulation = suspect.accumulation {
          text.append(
            "most of it in \(relativePath(accumulation.path, below: suspect.path, names: names)): "
              + "\(count(accumulation.objectCount, "object")), \(ProcessMemory.describe(bytes: accumulation.retainedBytes))", indent: 5)
        }
      }
    }
    text.append("Top retainers:")
    for (index, retainer) in retainers.prefix(Self.textLimit).enumerated() {
      text.append(
        [
          .itemNumber(index + 1),
          ReportText.Span(
            " \(path(retainer.path, names: names))  (\(count(retainer.objectCount, "object")), "
              + "\(ProcessMemory.describe(bytes: retainer.retainedBytes)) retained, \(percent(retainer.retainedBytes)))"),
        ], indent: 2)
      for site in retainer.sites {
        text.append(["allocated at "] + .frame(site.site, names: names) + [": \(count(site.count, "object"))"], indent: 5)
      }
    }
    if retainers.count > Self.textLimit {
      text.append("… \(count(retainers.count - Self.textLimit, "more path")) in the JSON report", as: .detail, indent: 2)
    }
    text.append("Types that retain most:")
    for type in types.prefix(Self.textLimit) {
      text.append(
        "\(names.type(type.typeName)): \(count(type.objectCount, "object")), \(ProcessMemory.describe(bytes: type.shallowBytes)) own, "
          + "\(ProcessMemory.describe(bytes: type.retainedBytes)) retained", indent: 2)
    }
    return text
  }

  /// `global Cache.shared: Cache retains 99% of the heap (225.5 KiB)`.
  func describe(_ suspect: Suspect, names: NameStyle) -> String {
    let amount = "\(percent(suspect.retainedBytes)) of the heap (\(ProcessMemory.describe(bytes: suspect.retainedBytes)))"
    return switch suspect.kind {
    case .object: "\(path(suspect.path, names: names)) retains \(amount)"
    case .collection: "\(path(suspect.path, names: names)): \(count(suspect.objectCount, "object")) retain \(amount)"
    }
  }

  /// `global Cache.shared: Cache.entries[*] -> Response`.
  /// A path of more than eight links keeps its first three and last four.
  func path(_ path: HeapTally.Path, names: NameStyle) -> String {
    guard path.links.count > 8 else { return "\(path.origin): \(names.chain(path.links))" }
    let middle = path.links.count - 7
    return "\(path.origin): \(names.chain(Array(path.links.prefix(3))))\(names.arrow)… \(middle) more …\(names.arrow)"
      + names.chain(Array(path.links.suffix(4)))
  }

  /// `path` from the last object of `holder` on, when it goes through it (`Cache.entries[*] ->
  /// Response` below `global Cache.shared: Cache`); the whole path otherwise.
  func relativePath(_ path: HeapTally.Path, below holder: HeapTally.Path, names: NameStyle) -> String {
    let prefix = holder.links.count - 1
    guard path.origin == holder.origin, path.links.count > prefix,
      zip(path.links.prefix(prefix), holder.links.prefix(prefix)).allSatisfy(==),
      path.links[prefix].typeName == holder.links[prefix].typeName
    else { return self.path(path, names: names) }
    return names.chain(Array(path.links[prefix...]))
  }

  /// `76%`, `<1%`.
  func percent(_ bytes: Int) -> String {
    let value = share(bytes) * 100
    return value > 0 && value < 1 ? "<1%" : "\(Int(value.rounded()))%"
  }
}
