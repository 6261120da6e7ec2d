extension GateOutcome {
  /// The verdict as one self-contained HTML page: new findings (each cycle drawn), accepted ones
  /// as a sortable table, and the accepted fingerprints no longer found.
  ///
  /// - Parameters:
  ///   - baseline: how to name the baseline (its path).
  ///   - acceptCommand: how the reader accepts the current findings, if they can.
  ///   - graphviz: turns Graphviz source into SVG; `nil` draws with the built-in layout.
  public func renderHTML(baseline: String, acceptCommand: String? = nil, graphviz: ((String) -> String?)? = nil) -> String {
    let names = nameStyle
    var page = HTMLPage(title: "Leak gate: " + verdictText, subtitle: "Compared with the baseline \(baseline)")
    page.body += "<p class=\"verdict \(newFindings.isEmpty ? "good" : "bad")\">\(HTMLPage.escaped(verdictText))</p>\n"
    for sentence in uncheckedProcesses { page.body += "<p class=\"verdict bad\">\(HTMLPage.escaped(sentence))</p>\n" }
    page.body += "<nav class=\"tiles\">"
    page.body += HTMLPage.tile(grouped(newFindings.count), "new findings", tone: newFindings.isEmpty ? "good" : "bad", link: "new")
    page.body += HTMLPage.tile(grouped(acceptedFindings.count), "accepted findings", tone: "neutral", link: "accepted")
    page.body += HTMLPage.tile(
      grouped(fixedFingerprints.count), "fixed (no longer found)", tone: fixedFingerprints.isEmpty ? "neutral" : "good", link: "fixed")
    page.body += "</nav>\n"
    if let note = names.homeModuleNote { page.body += "<p class=\"note\">\(HTMLPage.escaped(note))</p>\n" }

    page.body += "<section id=\"new\"><h2>New findings (\(grouped(newFindings.count)))</h2>\n"
    if newFindings.isEmpty { page.body += "<p class=\"muted\">None.</p>\n" }
    for (index, finding) in HeapFinding.inReadingOrder(newFindings).enumerated() {
      page.body += Self.findingArticle(finding, id: "n\(index + 1)", names: names, graphviz: graphviz)
    }
    if let acceptCommand, !newFindings.isEmpty {
      page.body +=
        "<p>Fix them, or accept them with <code>\(HTMLPage.escaped(acceptCommand))</code> and write the reason for each in the baseline.</p>\n"
    }
    page.body += "</section>\n"

    page.body += "<section id=\"accepted\"><h2>Accepted findings (\(grouped(acceptedFindings.count)))</h2>\n"
    if acceptedFindings.isEmpty {
      page.body += "<p class=\"muted\">None.</p>\n"
    } else {
      page.body += HTMLPage.table(
        id: "accepted-findings",
        columns: [("kind", "Kind", false), ("count", "Count", true), ("finding", "Finding", false), ("fingerprint", "Fingerprint", false)],
        rows: HeapFinding.inReadingOrder(acceptedFindings).map { finding in
          [
            HTMLPage.escaped(finding.kind.rawValue), HTMLPage.numberCell(finding.count),
            "<span class=\"chain\">\(HTMLPage.escaped(names.summary(of: finding)))</span>",
            "<span class=\"fingerprint\">\(finding.fingerprint)</span>",
          ]
        })
    }
    page.body += "</section>\n"

    page.body += "<section id=\"fixed\"><h2>Fixed (\(grouped(fixedFingerprints.count)))</h2>\n"
    if fixedFingerprints.isEmpty {
      page.body += "<p class=\"muted\">Every accepted finding is still present.</p>\n"
    } else {
      page.body += "<ul>" + fixedFingerprints.map { "<li class=\"fingerprint\">\(HTMLPage.escaped($0))</li>" }.joined() + "</ul>\n"
      if let acceptCommand { page.body += "<p>Tighten the baseline with <code>\(HTMLPage.escaped(acceptCommand))</code>.</p>\n" }
    }
    page.body += "</section>\n"
    return page.render()
  }

  private var verdictText: String {
    switch verdict {
    case .passed: "passed"
    case .newFindings: count(newFindings.count, "new finding")
    case .baselineStale: "passed; \(count(fixedFingerprints.count, "accepted finding")) fixed"
    }
  }

  /// One finding: its kind, summary, drawing (for a cycle), site and fingerprint.
  static func findingArticle(_ finding: HeapFinding, id: String, names: NameStyle, graphviz: ((String) -> String?)?) -> String {
    var out = "<article class=\"finding \(finding.kind.rawValue)\" id=\"\(id)\" data-fingerprint=\"\(finding.fingerprint)\">"
    let times = finding.count > 1 ? "\(finding.count) × " : ""
    out +=
      "<h3><span class=\"muted\">\(finding.kind.rawValue):</span> \(times)<span class=\"chain\">\(HTMLPage.escaped(names.summary(of: finding)))</span></h3>"
    if finding.kind != .survivor, finding.links.count > 1 {
      out += HTMLPage.diagram(CycleDiagram(links: finding.links, names: names), id: id, graphviz: graphviz)
    }
    if let location = finding.location { out += "<p>Allocated at \(HTMLPage.siteCell(location, names: names))</p>" }
    return out + "<p class=\"fingerprint\">fingerprint \(finding.fingerprint)</p></article>\n"
  }
}
