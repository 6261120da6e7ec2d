extension HeapDiff {
  /// The comparison as one self-contained HTML page: tiles for the totals, then the types, the
  /// retaining paths, the objects allocated between the snapshots and the findings as sortable
  /// tables, each with a filter box, and each new or growing cycle or leak drawn.
  ///
  /// - Parameters:
  ///   - old: how to name the earlier snapshot.
  ///   - new: how to name the later snapshot.
  ///   - graphviz: turns Graphviz source into SVG; `nil` draws with the built-in layout.
  public func renderHTML(old: String, new: String, graphviz: ((String) -> String?)? = nil) -> String {
    let names = nameStyle
    var page = HTMLPage(title: "Heap comparison", subtitle: "From \(old) to \(new)")
    let growingFindings = findings.filter(\.hasMoreObjects)
    page.body += "<nav class=\"tiles\">"
    page.body += HTMLPage.tile(
      "\(grouped(oldTotal.count)) → \(grouped(newTotal.count))", "objects (\(Self.signed(newTotal.count - oldTotal.count)))",
      tone: "neutral")
    page.body += HTMLPage.tile(
      Self.signed(newTotal.bytes - oldTotal.bytes), "bytes (\(grouped(oldTotal.bytes)) → \(grouped(newTotal.bytes)))", tone: "neutral")
    page.body += HTMLPage.tile(
      grouped(types.count(where: \.hasMoreObjects)), "types with more objects",
      tone: types.contains(where: \.hasMoreObjects) ? "bad" : "good",
      link: "types")
    page.body += HTMLPage.tile(
      grouped(paths.count(where: \.hasMoreObjects)), "paths with more objects",
      tone: paths.contains(where: \.hasMoreObjects) ? "bad" : "good",
      link: "paths")
    page.body += HTMLPage.tile(grouped(allocatedBetween.total.count), "objects allocated between", tone: "neutral", link: "allocated")
    page.body += HTMLPage.tile(
      grouped(growingFindings.count), "new or growing findings", tone: growingFindings.isEmpty ? "good" : "bad", link: "findings")
    page.body += "</nav>\n"
    if let note = names.homeModuleNote { page.body += "<p class=\"note\">\(HTMLPage.escaped(note))</p>\n" }

    page.body += Self.changeSection(
      id: "types", title: "Types", order: "the most bytes added first", changes: types, nameTitle: "Type", noun: "types"
    ) { "<code>\(HTMLPage.escaped(names.type($0)))</code>" }
    page.body += Self.changeSection(
      id: "paths", title: "Retaining paths", order: "the most objects added first; a path's bytes are what its objects hold",
      changes: paths, nameTitle: "Retaining path", noun: "paths"
    ) { "<span class=\"chain\">\(HTMLPage.escaped("\($0.origin): \(names.chain($0.links))"))</span>" }
    page.body += allocatedSection(names: names)

    page.body +=
      "<section id=\"findings\"><h2>Findings (\(Self.statusCounts(findings).isEmpty ? "none changed" : Self.statusCounts(findings))))</h2>\n"
    if findings.isEmpty {
      page.body += "<p class=\"muted\">No cycle or leak is new or gone.</p>\n"
    } else {
      page.body += HTMLPage.filter(for: "findings-table", placeholder: "Filter findings")
      page.body += HTMLPage.table(
        id: "findings-table",
        columns: [
          ("status", "Status", false), ("kind", "Kind", false), ("finding", "Finding", false), ("before", "Before", true),
          ("after", "After", true), ("delta", "Δ", true), ("fingerprint", "Fingerprint", false),
        ],
        rows: findings.map { change in
          [
            Self.statusCell(change.status), HTMLPage.escaped(change.subject.kind.rawValue),
            "<span class=\"chain\">\(HTMLPage.escaped(names.summary(of: change.subject)))</span>", HTMLPage.numberCell(change.before.count),
            HTMLPage.numberCell(change.after.count), Self.deltaCell(change.countDelta),
            "<span class=\"fingerprint\">\(change.subject.fingerprint)</span>",
          ]
        })
    }
    for (index, change) in growingFindings.enumerated() {
      page.body += "<p class=\"muted\">\(change.status.rawValue): \(Self.change(change.before.count, change.after.count))</p>"
      page.body += GateOutcome.findingArticle(change.subject, id: "g\(index + 1)", names: names, graphviz: graphviz)
    }
    page.body += "</section>\n"
    return page.render()
  }

  /// A section with one row per change: its status, its name, and its objects and bytes in each
  /// snapshot with the deltas.
  private static func changeSection<Subject>(
    id: String, title: String, order: String, changes: [Change<Subject>], nameTitle: String, noun: String, name: (Subject) -> String
  ) -> String {
    var out = "<section id=\"\(id)\"><h2>\(title) (\(changes.isEmpty ? "none changed" : statusCounts(changes)))</h2>\n"
    guard !changes.isEmpty else { return out + "<p class=\"muted\">No \(noun) changed.</p></section>\n" }
    out += "<p class=\"note\">Sorted with \(order); click a column to sort by it.</p>\n"
    out += HTMLPage.filter(for: "\(id)-table", placeholder: "Filter \(noun)")
    out += HTMLPage.table(
      id: "\(id)-table",
      columns: [
        ("status", "Status", false), ("name", nameTitle, false), ("before", "Before", true), ("after", "After", true),
        ("delta", "Δ objects", true), ("bytes-before", "Bytes before", true), ("bytes-after", "Bytes after", true),
        ("bytes-delta", "Δ bytes", true),
      ],
      rows: changes.map { change in
        [
          statusCell(change.status), name(change.subject), HTMLPage.numberCell(change.before.count),
          HTMLPage.numberCell(change.after.count),
          deltaCell(change.countDelta), HTMLPage.numberCell(change.before.bytes), HTMLPage.numberCell(change.after.bytes),
          deltaCell(change.byteDelta),
        ]
      })
    return out + "</section>\n"
  }

  /// The objects allocated between the snapshots, by type and by line.
  private func allocatedSection(names: NameStyle) -> String {
    let between = allocatedBetween
    var out =
      "<section id=\"allocated\"><h2>Allocated between the snapshots (\(count(between.total.count, "object")), "
      + "\(count(between.total.bytes, "byte")))</h2>\n"
    out +=
      "<p class=\"note\">Objects of the later snapshot that the earlier one does not have, \(HTMLPage.escaped(between.ruleDescription)).</p>\n"
    guard between.total.count > 0 else { return out + "</section>\n" }
    out += "<h3>By type</h3>\n" + HTMLPage.filter(for: "allocated-types", placeholder: "Filter types")
    out += HTMLPage.table(
      id: "allocated-types", columns: [("type", "Type", false), ("count", "Objects", true), ("bytes", "Bytes", true)],
      rows: between.byType.map { group in
        ["<code>\(HTMLPage.escaped(names.type(group.name)))</code>", HTMLPage.numberCell(group.count), HTMLPage.numberCell(group.bytes)]
      })
    if !between.bySite.isEmpty {
      out += "<h3>By allocation site</h3>\n" + HTMLPage.filter(for: "allocated-sites", placeholder: "Filter sites")
      out += HTMLPage.table(
        id: "allocated-sites", columns: [("site", "Allocated at", false), ("count", "Objects", true), ("bytes", "Bytes", true)],
        rows: between.bySite.map { group in
          [HTMLPage.siteCell(group.site, names: names), HTMLPage.numberCell(group.count), HTMLPage.numberCell(group.bytes)]
        })
    }
    if between.withoutSite.count > 0 {
      out +=
        "<p class=\"muted\">Without a stack: \(count(between.withoutSite.count, "object")), \(count(between.withoutSite.bytes, "byte")).</p>\n"
    }
    return out + "</section>\n"
  }

  /// `new`, `grown`, `shrunk`, `gone`, styled by what it means.
  private static func statusCell<Subject>(_ status: Change<Subject>.Status) -> String {
    "<span class=\"status \(status.rawValue)\">\(status.rawValue)</span>"
  }

  /// `+3`, sortable by its value.
  private static func deltaCell(_ value: Int) -> String { "<span data-value=\"\(value)\">\(signed(value))</span>" }
}
