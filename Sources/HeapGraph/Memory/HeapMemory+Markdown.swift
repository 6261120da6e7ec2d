extension HeapMemory {
  /// The section of a Markdown report that says what holds the memory: the suspects, then the
  /// top retainers as a table (empty when no object has a size).
  ///
  /// ```text
  /// ### What holds the memory: 2,005 objects, 227 KiB
  ///
  /// **Leak suspect:** global Cache.shared: Cache retains 100% of the heap (227 KiB); most of it in Cache.entries[*] → Response: 1,000 objects, 227 KiB
  ///
  /// | retained | share | objects | path | allocated at |
  /// | ---: | ---: | ---: | --- | --- |
  /// | 227 KiB | 100% | 1,000 | global Cache.shared: Cache.entries[*] → Response | Cache.fill() (Cache.swift:12) |
  /// ```
  package func renderMarkdown(names: NameStyle) -> String {
    guard byteCount > 0, !retainers.isEmpty else { return "" }
    var out = "### What holds the memory: \(count(objectCount, "object")), \(ProcessMemory.describe(bytes: byteCount))\n\n"
    for suspect in suspects.prefix(Self.textLimit) {
      var line = describe(suspect, names: names)
      if let accumulation = suspect.accumulation {
        line +=
          "; most of it in \(relativePath(accumulation.path, below: suspect.path, names: names)): "
          + "\(count(accumulation.objectCount, "object")), \(ProcessMemory.describe(bytes: accumulation.retainedBytes))"
      }
      out += "**Leak suspect:** \(markdownEscaped(line))\n\n"
    }
    out += "| retained | share | objects | path | allocated at |\n| ---: | ---: | ---: | --- | --- |\n"
    for retainer in retainers.prefix(Self.textLimit) {
      let sites = retainer.sites.map { names.frame($0.site) }.joined(separator: ", ")
      out +=
        "| \(ProcessMemory.describe(bytes: retainer.retainedBytes)) | \(percent(retainer.retainedBytes)) | \(grouped(retainer.objectCount)) "
        + "| \(markdownEscaped(path(retainer.path, names: names))) | \(markdownEscaped(sites)) |\n"
    }
    return out
  }
}
