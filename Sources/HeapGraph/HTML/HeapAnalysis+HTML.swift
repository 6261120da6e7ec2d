extension HeapAnalysis {
  /// The most cycle shapes drawn in an HTML report; the rest are counted (the JSON report has them all).
  static let htmlCycleLimit = 200

  /// The report as one self-contained HTML page that explores the heap, as Eclipse MAT and
  /// the Chrome DevTools heap snapshot do: a summary (leak groups, survivors, cycles, what holds
  /// the memory), a histogram of types, the dominator tree, an inspector for any object (its
  /// fields, referrers, allocation stack and shortest path from a root, where weak and unowned
  /// references are shown but never taken) and each leak group drawn once with its instances.
  /// Every object is in the page, as compact columns its script decodes; lists show a page of
  /// rows at a time, so a heap of a million objects opens in a second or two.
  ///
  /// The page needs no network and no other file. Its address selects what it shows:
  /// `leaks.html#object=42` opens object 42 in the inspector, `#view=types` the types.
  ///
  /// The summary of the heap in ``renderText(settingNames:names:allCycles:)``'s example, as
  /// Chromium shows its text:
  ///
  /// ```text
  /// Summary  Types  Dominators  Leaks  Inspector                    [Search types ( / )]
  /// 5 leaked objects in 2 groups · 1 survivors · 2 retain cycles · 8 objects
  /// Leaks
  ///   Instances  Leak                                      Objects  Retained bytes
  ///   1          Vendor.Pool                               2        1,048
  ///   1          Cache.entries[…] → Entry.owner → Cache    3        144
  /// Survivors
  ///   Feed #2 held from global App.shared; suspect App.AppState.feeds[0] 80 bytes retained
  /// ```
  ///
  /// - Parameters:
  ///   - title: the page's title; by default it names the snapshot's process.
  ///   - graphviz: turns Graphviz source into SVG (the CLI runs `dot -Tsvg` when it is
  ///     installed); `nil`, or a `nil` result, draws cycles with the built-in layout.
  ///   - compress: gzip-compresses the embedded data (the CLI passes zlib's); `nil` embeds it
  ///     as it is, three or four times larger.
  ///   - allCycles: whether to draw the reachable cycles of dependencies' types too.
  ///   - settingNames: how to name the setting that lists folded cycles.
  public func renderHTML(
    title: String? = nil, graphviz: ((String) -> String?)? = nil, compress: (([UInt8]) -> [UInt8])? = nil,
    allCycles: Bool = false, settingNames: ReportSettingNames = .configuration
  ) -> String {
    let listing = CycleListing(analysis: self, allCycles: allCycles)
    let names = nameStyle(listing)
    let metadata = graph.metadata
    return HeapExplorer(analysis: self, names: names, memory: HeapMemory(analysis: self)).page(
      title: title ?? "Heap explorer" + (metadata.process.map { ": \($0)" } ?? ""),
      subtitle: [
        "\(count(graph.objectCount, "object")), \(count(graph.referenceCount, "reference")) (\(grouped(graph.strongReferenceCount)) strong)",
        metadata.tool.map { "captured by \($0)" }, metadata.createdAt,
      ].compactMap { $0 }.joined(separator: " · "),
      graphviz: graphviz, compress: compress, cycles: listing,
      foldedLine: listing.foldedLine(names: names, settingNames: settingNames))
  }

  /// One cycle: its chain, short form, drawing, objects with their sites, and fingerprint.
  static func cycleArticle(_ cycle: RetainCycle, heading: String, id: String, names: NameStyle, graphviz: ((String) -> String?)?)
    -> String
  {
    var out = "<article class=\"cycle\" id=\"\(id)\" data-fingerprint=\"\(cycle.fingerprint)\">"
    out +=
      "<h3><span class=\"muted\">\(HTMLPage.escaped(heading)):</span> <span class=\"chain\">\(HTMLPage.escaped(names.cycle(cycle)))</span></h3>"
    if let short = names.shortForm(of: cycle) { out += "<p class=\"short\">In short: <code>\(HTMLPage.escaped(short))</code></p>" }
    out += HTMLPage.diagram(CycleDiagram(cycle: cycle, names: names), id: id, graphviz: graphviz)
    out += HTMLPage.table(
      id: "\(id)-objects", columns: [("type", "Object", false), ("id", "Id", true), ("site", "Allocated or written at", false)],
      rows: cycle.elements.map { element in
        [
          "<code>\(HTMLPage.escaped(names.type(element.typeName)))</code>", HTMLPage.numberCell(Int(element.objectID)),
          HTMLPage.siteCell(element.allocationSite.allocationSite, names: names),
        ]
      }, sortable: false)
    return out + "<p class=\"fingerprint\">fingerprint \(cycle.fingerprint)</p></article>\n"
  }
}
