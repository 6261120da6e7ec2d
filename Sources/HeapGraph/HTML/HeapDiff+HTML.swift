extension HeapDiff {
  /// The diff as one self-contained HTML page: growing types, retaining paths and findings as
  /// sortable tables, each new or growing cycle drawn.
  ///
  /// - Parameters:
  ///   - old: how to name the earlier snapshot.
  ///   - new: how to name the later snapshot.
  ///   - graphviz: turns Graphviz source into SVG; `nil` draws with the built-in layout.
  public func renderHTML(old: String, new: String, graphviz: ((String) -> String?)? = nil) -> String {
    let names = nameStyle
    var page = HTMLPage(title: "Heap growth", subtitle: "From \(old) to \(new)")
    page.body += "<nav class=\"tiles\">"
    page.body += HTMLPage.tile(grouped(growingTypes.count), "growing types", tone: growingTypes.isEmpty ? "good" : "bad", link: "types")
    page.body += HTMLPage.tile(
      grouped(growingFindings.count), "new or growing findings", tone: growingFindings.isEmpty ? "good" : "bad", link: "findings")
    page.body += HTMLPage.tile(grouped(shrinkingTypeCount), "shrinking types", tone: "neutral")
    page.body += "</nav>\n"
    if let note = names.homeModuleNote { page.body += "<p class=\"note\">\(HTMLPage.escaped(note))</p>\n" }
    func growthRows(_ growths: [Growth], name: (Growth) -> String) -> [[String]] {
      growths.map { growth in
        [
          "<span class=\"chain\">\(HTMLPage.escaped(name(growth)))</span>", HTMLPage.numberCell(growth.before),
          HTMLPage.numberCell(growth.after),
          HTMLPage.numberCell(growth.delta),
        ]
      }
    }
    let columns: [(key: String, title: String, isNumeric: Bool)] = [
      ("name", "Type", false), ("before", "Before", true), ("after", "After", true), ("growth", "Growth", true),
    ]
    page.body += "<section id=\"types\"><h2>Growing types (\(grouped(growingTypes.count)))</h2>\n"
    page.body +=
      growingTypes.isEmpty
      ? "<p class=\"muted\">None.</p>\n"
      : HTMLPage.table(id: "growing-types", columns: columns, rows: growthRows(growingTypes) { names.type($0.name) })
    if !growingPaths.isEmpty {
      page.body += "<h2>Retaining paths that grew</h2>\n"
      var pathColumns = columns
      pathColumns[0].title = "Retaining path"
      page.body += HTMLPage.table(id: "growing-paths", columns: pathColumns, rows: growthRows(growingPaths, name: \.name))
    }
    page.body += "</section>\n<section id=\"findings\"><h2>New or growing findings (\(grouped(growingFindings.count)))</h2>\n"
    if growingFindings.isEmpty { page.body += "<p class=\"muted\">None.</p>\n" }
    for (index, growth) in growingFindings.enumerated() {
      guard let finding = growth.finding else { continue }
      page.body += "<p class=\"muted\">\(growth.before) → \(growth.after) (+\(growth.delta))</p>"
      page.body += GateOutcome.findingArticle(finding, id: "g\(index + 1)", names: names, graphviz: graphviz)
    }
    page.body += "</section>\n"
    return page.render()
  }
}
