extension HeapGrowth {
  /// The growth report as one self-contained HTML page: each thing that grew with a chart of its
  /// count per snapshot, its bytes per step and the lines that added it, then the types.
  ///
  /// - Parameter snapshots: how to name the snapshots, in order.
  public func renderHTML(snapshots: [String]) -> String {
    let names = nameStyle
    let steps = snapshotCount - 1
    let rule = minimumGrowingSteps == steps ? "in every step" : "in at least \(minimumGrowingSteps) of \(steps) steps"
    var page = HTMLPage(title: "Heap growth", subtitle: "\(snapshotCount) snapshots: " + snapshots.joined(separator: ", "))
    page.body += "<nav class=\"tiles\">"
    page.body += HTMLPage.tile(grouped(findings.count), "grew \(rule)", tone: findings.isEmpty ? "good" : "bad", link: "growing")
    page.body += HTMLPage.tile(grouped(growingTypes.count), "growing types", tone: growingTypes.isEmpty ? "good" : "neutral", link: "types")
    page.body += HTMLPage.tile(
      "\(grouped(totals.first?.objects ?? 0)) → \(grouped(totals.last?.objects ?? 0))", "objects", tone: "neutral", link: "totals")
    page.body += "</nav>\n"
    if let note = names.homeModuleNote { page.body += "<p class=\"note\">\(HTMLPage.escaped(note))</p>\n" }
    page.body += "<section id=\"growing\"><h2>What grew \(rule) (\(grouped(findings.count)))</h2>\n"
    if findings.isEmpty { page.body += "<p class=\"verdict good\">Nothing grew \(rule).</p>\n" }
    for (index, finding) in findings.enumerated() {
      let title =
        switch finding.kind {
        case .path: "\(finding.origin ?? "root"): \(names.chain(finding.links))"
        case .leak: "leaked: \(names.leak(finding.links, summary: finding.summary))"
        }
      page.body += "<article class=\"finding growth\" id=\"g\(index + 1)\" data-fingerprint=\"\(finding.fingerprint)\">"
      page.body += "<h3>\(index + 1)) <span class=\"chain\">\(HTMLPage.escaped(title))</span></h3>"
      page.body += Self.chart(finding.counts, id: "g\(index + 1)-chart")
      page.body +=
        "<p>\(finding.kind == .path ? "Objects" : "Instances") \(finding.counts.map(grouped).joined(separator: " → ")); "
        + "\(HTMLPage.escaped(Self.perStep(finding.bytesPerStep))) bytes per step.</p>"
      if let growing = finding.growing {
        page.body += "<p>Growing: <code>\(HTMLPage.escaped(names.link(type: growing.typeName, reference: growing.reference)))</code></p>"
      }
      if let holds = finding.holdsSummary(names: names, arrow: " → ") {
        page.body += "<p>Holds: \(HTMLPage.escaped(holds))</p>"
      }
      if !finding.addedAt.isEmpty {
        page.body += HTMLPage.table(
          id: "g\(index + 1)-sites", columns: [("site", "Added at", false), ("count", "Objects", true)],
          rows: finding.addedAt.map { [HTMLPage.siteCell($0.site, names: names), HTMLPage.numberCell($0.count)] }, sortable: false)
      }
      page.body += "<p class=\"fingerprint\">fingerprint \(finding.fingerprint)</p></article>\n"
    }
    page.body += "</section>\n<section id=\"types\"><h2>Types that grew \(rule) (\(grouped(growingTypes.count)))</h2>\n"
    page.body +=
      growingTypes.isEmpty
      ? "<p class=\"muted\">None.</p>\n"
      : HTMLPage.table(
        id: "growing-types",
        columns: [("type", "Type", false), ("first", "First", true), ("last", "Last", true), ("chart", "Counts", false)],
        rows: growingTypes.map { type in
          [
            "<code>\(HTMLPage.escaped(names.type(type.typeName)))</code>", HTMLPage.numberCell(type.counts.first ?? 0),
            HTMLPage.numberCell(type.counts.last ?? 0), Self.chart(type.counts, id: nil, width: 120, height: 24),
          ]
        })
    page.body += "</section>\n"
    page.body += memorySection(snapshots: snapshots)
    page.body += "<section id=\"totals\"><h2>Snapshots</h2>\n"
    page.body += HTMLPage.table(
      id: "snapshots", columns: [("snapshot", "Snapshot", false), ("objects", "Objects", true), ("bytes", "Bytes", true)],
      rows: totals.enumerated().map { index, total in
        [
          "<code>\(HTMLPage.escaped(index < snapshots.count ? snapshots[index] : "snapshot \(index + 1)"))</code>",
          HTMLPage.numberCell(total.objects), HTMLPage.numberCell(total.bytes),
        ]
      }, sortable: false)
    page.body += "</section>\n"
    return page.render()
  }

  /// The process's memory per snapshot, when every snapshot records it: one chart per view
  /// (RSS, malloc in use, malloc free in arenas, Swift objects) and the line that says which grew.
  private func memorySection(snapshots: [String]) -> String {
    let memories = metadata.compactMap(\.memory)
    guard memories.count == snapshotCount, let memory else { return "" }
    var out = "<section id=\"memory\"><h2>Memory</h2>\n"
    out += "<p class=\"verdict \(memory.cause == .steady ? "good" : "bad")\">\(HTMLPage.escaped(memory.summary))</p>\n"
    let views: [(key: String, title: String, field: KeyPath<ProcessMemory, Int?>)] = [
      ("rss", "RSS", \.residentBytes), ("in-use", "malloc in use", \.mallocInUse), ("free", "malloc free in arenas", \.mallocFreeInArenas),
      ("swift", "Swift objects", \.swiftObjectBytes),
    ]
    out += HTMLPage.table(
      id: "memory-views",
      columns: [("view", "Memory", false), ("first", "First", true), ("last", "Last", true), ("chart", "Per snapshot", false)],
      rows: views.compactMap { view in
        let values = memories.map { $0[keyPath: view.field] ?? 0 }
        guard memories.contains(where: { $0[keyPath: view.field] != nil }) else { return nil }
        return [
          HTMLPage.escaped(view.title), "<span data-value=\"\(values.first!)\">\(ProcessMemory.describe(bytes: values.first!))</span>",
          "<span data-value=\"\(values.last!)\">\(ProcessMemory.describe(bytes: values.last!))</span>",
          Self.chart(values, id: "memory-\(view.key)", width: 160, height: 32),
        ]
      }, sortable: false)
    return out + "</section>\n"
  }

  /// A small line chart of `values`, one point per snapshot, from 0 to the largest value.
  static func chart(_ values: [Int], id: String?, width: Int = 240, height: Int = 48) -> String {
    let top = max(1, values.max() ?? 1)
    let step = values.count > 1 ? Double(width - 8) / Double(values.count - 1) : 0
    let points = values.enumerated().map { index, value in
      let x = 4 + Double(index) * step
      let y = Double(height - 4) - Double(value) / Double(top) * Double(height - 8)
      return "\((x * 10).rounded() / 10),\((y * 10).rounded() / 10)"
    }
    let label = "counts " + values.map(String.init).joined(separator: ", ")
    return
      "<svg class=\"chart\"\(id.map { " id=\"\($0)\"" } ?? "") width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\" "
      + "role=\"img\" aria-label=\"\(HTMLPage.escaped(label))\"><polyline fill=\"none\" stroke=\"currentColor\" stroke-width=\"2\" points=\""
      + points.joined(separator: " ") + "\"/>"
      + points.map { "<circle r=\"2.5\" cx=\"\($0.split(separator: ",")[0])\" cy=\"\($0.split(separator: ",")[1])\"/>" }.joined() + "</svg>"
  }
}
