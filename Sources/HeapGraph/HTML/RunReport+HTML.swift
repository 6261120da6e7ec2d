extension RunReport {
  /// The report of a checked run as one self-contained HTML page: the processes checked, and
  /// each leak with its cycle drawn, the tests that allocated it and its objects' sites; the
  /// leaks also as a sortable table by retained size.
  ///
  /// - Parameters:
  ///   - command: the command that was run, for the page's subtitle.
  ///   - graphviz: turns Graphviz source into SVG; `nil` draws with the built-in layout.
  public func renderHTML(command: String, graphviz: ((String) -> String?)? = nil) -> String {
    let names = nameStyle
    let verdict =
      !leaks.isEmpty
      ? count(leaks.count, "leak")
      : uncheckedProcesses.isEmpty ? "no leaks" : "incomplete, \(count(uncheckedProcesses.count, "process")) not checked"
    var page = HTMLPage(title: "Leak check: " + verdict, subtitle: command)
    let objects = leaks.reduce(0) { $0 + $1.objectCount }
    page.body += "<nav class=\"tiles\">"
    page.body += HTMLPage.tile(grouped(leaks.count), "leak groups", tone: leaks.isEmpty ? "good" : "bad", link: "leaks")
    page.body += HTMLPage.tile(grouped(objects), "leaked objects", tone: leaks.isEmpty ? "good" : "bad")
    page.body += HTMLPage.tile(grouped(processes.count), "processes checked", tone: "neutral", link: "processes")
    page.body += HTMLPage.tile(grouped(suppressed.count), "suppressed groups", tone: "neutral")
    page.body += "</nav>\n"
    if let note = names.homeModuleNote { page.body += "<p class=\"note\">\(HTMLPage.escaped(note))</p>\n" }
    for sentence in uncheckedProcesses { page.body += "<p class=\"verdict bad\">\(HTMLPage.escaped(sentence))</p>\n" }

    page.body += "<section id=\"leaks\"><h2>Leaks (\(grouped(leaks.count)))</h2>\n"
    if leaks.isEmpty { page.body += "<p class=\"muted\">None.</p>\n" }
    if !leaks.isEmpty {
      page.body += HTMLPage.table(
        id: "leak-groups",
        columns: [
          ("rank", "#", true), ("instances", "Instances", true), ("entry", "Entry", false), ("objects", "Objects", true),
          ("retained", "Retained bytes", true), ("tests", "Tests", false),
        ],
        rows: leaks.enumerated().map { index, leak in
          [
            HTMLPage.numberCell(index + 1), HTMLPage.numberCell(leak.instanceCount),
            "<a class=\"chain\" href=\"#l\(index + 1)\">\(HTMLPage.escaped(names.leak(leak.links, summary: leak.summary)))</a>",
            HTMLPage.numberCell(leak.objectCount), HTMLPage.numberCell(leak.retainedSize),
            HTMLPage.escaped(leak.tests.joined(separator: ", ")),
          ]
        })
    }
    for (index, leak) in leaks.enumerated() {
      let links = leak.links
      page.body += "<article class=\"finding leak\" id=\"l\(index + 1)\" data-fingerprint=\"\(leak.fingerprint)\">"
      page.body +=
        "<h3>\(index + 1)) \(leak.instanceCount) × <span class=\"chain\">\(HTMLPage.escaped(names.leak(links, summary: leak.summary)))</span></h3>"
      if leak.isThroughTestCode { page.body += "<p class=\"note\">Through test code: a test's own type or closure is in its entry.</p>" }
      if let ownSite = leak.ownSite, !leak.members.contains(where: { $0.site.map(ownSite.isSameLine) == true }) {
        page.body += "<p>Made by this package's code at \(HTMLPage.siteCell(ownSite, names: names))</p>"
      }
      if let tests = leak.testList(names: names, limit: 20) { page.body += "<p>\(HTMLPage.escaped(tests))</p>" }
      if links.count > 1 {
        page.body += HTMLPage.diagram(
          CycleDiagram(links: links, names: names, sites: leak.members.map(\.site)), id: "l\(index + 1)", graphviz: graphviz)
      }
      page.body += HTMLPage.table(
        id: "l\(index + 1)-objects", columns: [("object", "Object", false), ("site", "Allocated or written at", false)],
        rows: leak.members.map {
          [
            "<code>\(HTMLPage.escaped(names.link(type: $0.typeName, reference: $0.reference)))</code>",
            HTMLPage.siteCell($0.site, names: names),
          ]
        },
        sortable: false)
      if let others = names.otherTypes(leak.objectTypes, named: leak.members.map(\.typeName)) {
        page.body += "<p>Also holds \(HTMLPage.escaped(others)).</p>"
      }
      page.body +=
        "<p class=\"fingerprint\">fingerprint \(leak.fingerprint) · \(count(leak.objectCount, "object")), \(grouped(leak.retainedSize)) bytes</p></article>\n"
    }
    page.body += "</section>\n<section id=\"processes\"><h2>Processes checked</h2>\n<ul>"
    for process in processes {
      page.body += "<li><code>\(HTMLPage.escaped(process.description))</code>: \(count(process.objectCount, "object")) when it exited, "
      page.body += "\(grouped(process.leakedObjectCount)) leaked</li>"
    }
    for refusal in refusals {
      page.body += "<li>Not checked <code>\(HTMLPage.escaped(refusal.process.description))</code>: \(HTMLPage.escaped(refusal.reason))</li>"
    }
    for ended in endedEarly {
      page.body += "<li>Not checked <code>\(HTMLPage.escaped(ended.process))</code>: \(HTMLPage.escaped(ended.reason))</li>"
    }
    page.body += "</ul></section>\n"
    return page.render()
  }
}
