extension JSONWriter {
  /// The fields of a source location that are known, in the reports' order:
  /// `"function": …, "file": …, "line": …`, then for a site in inlined code the function that
  /// holds it, `"inlinedIn": {"function": …, "file": …, "line": …}`.
  mutating func siteFields(_ frame: StackFrame) {
    if let symbol = frame.symbol { field("function", symbol) }
    if let file = frame.file { field("file", file) }
    if let line = frame.line { field("line", line) }
    if let holder = frame.inlinedIn {
      key("inlinedIn")
      beginObject()
      siteFields(holder)
      endObject()
    }
  }
}

extension JSONWriter {
  /// Lines with their counts, as an array under `key`: `[{"function": …, "file": …, "line": …,
  /// "count": 1000}, …]`.
  mutating func siteCounts(_ key: StaticString, _ sites: [HeapTally.SiteCount]) {
    self.key(key)
    beginArray()
    for site in sites {
      beginObject()
      siteFields(site.site)
      field("count", site.count)
      endObject()
    }
    endArray()
  }
}
