extension HeapAnalysis {
  /// The most cycles drawn in an HTML report; the rest are counted (the JSON report has them all).
  static let htmlCycleLimit = 200
  /// The most rows of a table in an HTML report.
  static let htmlRowLimit = 2_000

  /// The report as one self-contained HTML page: summary tiles, the leak groups as a sortable
  /// table with retained sizes, the survivors with their retaining paths, each retain cycle drawn
  /// with its objects and allocation sites, and the allocation sites of everything found. Cycles
  /// are listed as in the text report (``renderText(settingNames:names:allCycles:)``): those of
  /// leaked objects first, then the package's own; the reachable cycles of dependencies' types are
  /// counted in one paragraph unless `allCycles`. Without roots, the cycles come first.
  ///
  /// - Parameters:
  ///   - title: the page's title; by default it names the snapshot's process.
  ///   - graphviz: turns Graphviz source into SVG (the CLI runs `dot -Tsvg` when it is
  ///     installed); `nil`, or a `nil` result, draws cycles with the built-in layout.
  ///   - allCycles: whether to draw the reachable cycles of dependencies' types too.
  ///   - settingNames: how to name the setting that lists folded cycles.
  public func renderHTML(
    title: String? = nil, graphviz: ((String) -> String?)? = nil, allCycles: Bool = false,
    settingNames: ReportSettingNames = .configuration
  ) -> String {
    let listing = CycleListing(analysis: self, allCycles: allCycles)
    let names = nameStyle(listing)
    let metadata = graph.metadata
    var page = HTMLPage(
      title: title ?? "Leak report" + (metadata.process.map { ": \($0)" } ?? ""),
      subtitle: [
        "\(count(graph.objectCount, "object")), \(count(graph.referenceCount, "reference")) (\(grouped(graph.strongReferenceCount)) strong)",
        metadata.tool.map { "captured by \($0)" }, metadata.createdAt,
      ].compactMap { $0 }.joined(separator: " · "))
    page.body += htmlTiles()
    if let note = names.homeModuleNote { page.body += "<p class=\"note\">\(HTMLPage.escaped(note))</p>\n" }
    let cycleSection = htmlCycles(listing, names: names, settingNames: settingNames, graphviz: graphviz)
    if !leaks.hasRoots { page.body += cycleSection }
    page.body += htmlLeakGroups(names: names)
    page.body += htmlSurvivors(names: names)
    if leaks.hasRoots { page.body += cycleSection }
    page.body += htmlAllocationSites(names: names)
    return page.render()
  }

  /// The summary tiles, each linking to its section, in the order of the sections: leaked
  /// objects and survivors, then cycles (cycles first when the snapshot has no roots), then objects.
  private func htmlTiles() -> String {
    var out = "<nav class=\"tiles\">"
    let cycleTile = HTMLPage.tile(grouped(cycles.foundCycleCount), "retain cycles", tone: cycles.hasCycles ? "bad" : "good", link: "cycles")
    if !leaks.hasRoots { out += cycleTile }
    out += HTMLPage.tile(
      grouped(leaks.leakedObjectCount), "leaked objects in \(count(leaks.leakGroups.count, "group"))",
      tone: leaks.leakGroups.isEmpty ? "good" : "bad", link: "leaks")
    out += HTMLPage.tile(grouped(leaks.survivors.count), "survivors", tone: leaks.survivors.isEmpty ? "good" : "bad", link: "survivors")
    if leaks.hasRoots { out += cycleTile }
    out += HTMLPage.tile(grouped(graph.objectCount), "objects in the snapshot", tone: "neutral")
    return out + "</nav>\n"
  }

  /// The cycles section: each listed cycle drawn, up to ``htmlCycleLimit``, in the order of
  /// `listing`, then the folded ones counted.
  private func htmlCycles(
    _ listing: CycleListing, names: NameStyle, settingNames: ReportSettingNames, graphviz: ((String) -> String?)?
  ) -> String {
    var out = "<section id=\"cycles\"><h2>Retain cycles (\(grouped(cycles.foundCycleCount)))</h2>\n"
    if cycles.cycles.isEmpty { out += "<p class=\"muted\">No retain cycles.</p>\n" }
    var number = 0
    for (componentIndex, place, _) in listing.listed {
      for (cycleIndex, cycle) in cycles.components[componentIndex].cycles.enumerated() {
        number += 1
        guard number <= Self.htmlCycleLimit else { continue }
        out += Self.cycleArticle(
          cycle, heading: "Component \(componentIndex + 1), cycle \(cycleIndex + 1)" + (place.remark.map { " (\($0))" } ?? ""),
          id: "c\(number)", names: names, graphviz: graphviz)
      }
    }
    if number > Self.htmlCycleLimit {
      out += "<p class=\"note\">\(grouped(number - Self.htmlCycleLimit)) more cycles are not drawn; the JSON report lists them.</p>\n"
    }
    if let folded = listing.foldedLine(names: names, settingNames: settingNames) {
      out += "<p class=\"note\">\(HTMLPage.escaped(folded)); the JSON report lists them too.</p>\n"
    }
    return out + "</section>\n"
  }

  /// The leaks section: the leak groups as a sortable table.
  private func htmlLeakGroups(names: NameStyle) -> String {
    var out = "<section id=\"leaks\"><h2>Leaks (\(count(leaks.leakGroups.count, "group")))</h2>\n"
    if !leaks.hasRoots {
      out += "<p class=\"muted\">The snapshot lists no roots, so leaked objects cannot be told from live ones.</p>\n"
    } else if leaks.leakGroups.isEmpty {
      out += "<p class=\"muted\">None: every object is reachable from a root.</p>\n"
    } else {
      let rows = leaks.leakGroups.prefix(Self.htmlRowLimit).enumerated().map { index, group -> [String] in
        [
          HTMLPage.numberCell(index + 1), HTMLPage.numberCell(group.instanceCount),
          "<span class=\"chain\">\(HTMLPage.escaped(group.entryCycle.map(names.cycle) ?? names.type(group.summary)))</span>",
          HTMLPage.numberCell(group.objectCount), HTMLPage.numberCell(group.retainedSize),
          "<span class=\"fingerprint\">\(group.fingerprint)</span>",
        ]
      }
      out += HTMLPage.table(
        id: "leak-groups",
        columns: [
          ("rank", "#", true), ("instances", "Instances", true), ("entry", "Entry", false), ("objects", "Objects", true),
          ("retained", "Retained bytes", true), ("fingerprint", "Fingerprint", false),
        ], rows: rows)
    }
    return out + "</section>\n"
  }

  /// The survivors section: each survivor's retaining path, its suspect marked.
  private func htmlSurvivors(names: NameStyle) -> String {
    var out = "<section id=\"survivors\"><h2>Survivors (\(grouped(leaks.survivors.count)))</h2>\n"
    if leaks.survivors.isEmpty { out += "<p class=\"muted\">None.</p>\n" }
    for survivor in leaks.survivors.prefix(Self.htmlRowLimit) {
      out += "<article class=\"finding survivor\"><h3>\(HTMLPage.escaped(names.type(survivor.path.last?.typeName ?? "")))</h3>"
      out += "<p class=\"muted\">Expected dead, still reachable from \(HTMLPage.escaped(survivor.root)); "
      out += "\(grouped(survivor.retainedSize)) bytes retained.</p><ol class=\"path\">"
      for (index, step) in survivor.path.enumerated() {
        let isSuspect = index == survivor.path.count - 2
        let text = HTMLPage.escaped(names.link(type: step.typeName, reference: step.reference))
        out += "<li>" + (isSuspect ? "<span class=\"suspect\" title=\"likely cause\">\(text)</span>" : text) + "</li>"
      }
      out += "</ol><p class=\"fingerprint\">fingerprint \(survivor.fingerprint)</p></article>\n"
    }
    return out + "</section>\n"
  }

  /// The allocation sites section: where the objects of the findings were allocated.
  private func htmlAllocationSites(names: NameStyle) -> String {
    var out = "<section id=\"sites\"><h2>Allocation sites</h2>\n"
    let sites = allocationSites
    if sites.isEmpty {
      out += "<p class=\"muted\">The snapshot has no allocation stacks (start the tracker with stacks to see them).</p>\n"
    } else {
      out += HTMLPage.table(
        id: "allocation-sites", columns: [("site", "Allocated at", false), ("objects", "Objects found there", true)],
        rows: sites.prefix(Self.htmlRowLimit).map { [HTMLPage.siteCell($0.frame, names: names), HTMLPage.numberCell($0.count)] })
    }
    return out + "</section>\n"
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

  /// Where the objects of the findings were allocated, with how many objects each site
  /// allocated: cycle objects, leak groups' entries and survivors, most first.
  var allocationSites: [(frame: StackFrame, count: Int)] {
    var counts: [StackFrame: Int] = [:]
    var order: [StackFrame] = []
    func add(_ frame: StackFrame?) {
      guard var frame else { return }
      frame.pc = nil  // one row per function and line, whatever the return address
      frame.inlinedIn?.pc = nil
      if counts[frame] == nil { order.append(frame) }
      counts[frame, default: 0] += 1
    }
    for cycle in cycles.cycles { for element in cycle.elements { add(element.allocationSite.allocationSite) } }
    for id in leaks.leakGroups.flatMap(\.entryObjectIDs) + leaks.survivors.compactMap(\.path.last?.objectID) {
      guard let node = graph.node(forObjectID: id) else { continue }
      add(graph.allocationStack(of: node)?.frames.allocationSite)
    }
    // Most objects first; equal counts in the order the findings list them.
    return order.enumerated().sorted { (counts[$0.element]!, $1.offset) > (counts[$1.element]!, $0.offset) }.map {
      ($0.element, counts[$0.element]!)
    }
  }
}
