extension HeapExplorer {
  /// The explorer as one self-contained HTML page: the views' frames, the leak groups and cycles
  /// drawn by this code (each shape once, with how many there are), the encoded data in base64
  /// (gzip-compressed by `compress` when it is given, which the page undoes with the browser's
  /// `DecompressionStream`), and the script (``HeapExplorerScript``) that draws the rest.
  ///
  /// - Parameters:
  ///   - title: the page's title.
  ///   - subtitle: the line under it: what was analysed.
  ///   - graphviz: turns Graphviz source into SVG, or `nil` for the built-in layout.
  ///   - compress: gzip-compresses bytes, or `nil` to embed them as they are.
  ///   - cycles: the listed cycles, the folded ones' line.
  func page(
    title: String, subtitle: String, graphviz: ((String) -> String?)?, compress: (([UInt8]) -> [UInt8])?,
    cycles listing: CycleListing, foldedLine: String?
  ) -> String {
    let data = encoded()
    let embedded = compress.map { $0(data) } ?? data
    var page = HTMLPage(title: title, subtitle: subtitle)
    page.body += "<nav class=\"views\" aria-label=\"views\">"
    for (index, view) in ["Summary", "Types", "Dominators", "Leaks", "Inspector"].enumerated() {
      page.body += "<a href=\"#view=\(view.lowercased())\" data-view=\"\(view.lowercased())\" title=\"key \(index + 1)\">\(view)</a>"
    }
    page.body +=
      "<input id=\"search\" type=\"search\" placeholder=\"Search types ( / )\" aria-label=\"search types by name\" autocomplete=\"off\">"
    page.body += "</nav>\n<p id=\"status\" class=\"muted\">Reading \(grouped(analysis.graph.objectCount)) objects…</p>\n"
    if let note = names.homeModuleNote { page.body += "<p class=\"note\">\(HTMLPage.escaped(note))</p>\n" }
    for view in ["summary", "types", "dominators"] { page.body += "<section class=\"view\" id=\"view-\(view)\" hidden></section>\n" }
    page.body += "<section class=\"view\" id=\"view-leaks\" hidden>\(leakGroupsHTML(graphviz: graphviz))"
    page.body += cyclesHTML(listing, foldedLine: foldedLine, graphviz: graphviz) + "</section>\n"
    page.body += "<section class=\"view\" id=\"view-inspector\" hidden><p class=\"muted\">Click an object in another view.</p></section>\n"
    page.body += Self.keysHTML
    page.body += "<script type=\"application/octet-stream\" id=\"heap-data\" data-encoding=\"\(compress == nil ? "none" : "gzip")\">"
    page.body += base64Encoded(embedded) + "</script>\n"
    return page.render(script: HeapExplorerScript.source, extraStyle: Self.style)
  }

  /// Each leak group once: its cycle drawn, its counts, and its instances listed when opened;
  /// past ``HeapAnalysis/htmlCycleLimit`` groups, the script lists the rest undrawn.
  private func leakGroupsHTML(graphviz: ((String) -> String?)?) -> String {
    let leaks = analysis.leaks
    var out = "<h2>Leak groups (\(grouped(leaks.leakGroups.count)))</h2>\n"
    if !leaks.hasRoots {
      out += "<p class=\"muted\">The snapshot lists no roots, so leaked objects cannot be told from live ones.</p>\n"
    } else if leaks.leakGroups.isEmpty {
      out += "<p class=\"muted\">None: every object is reachable from a root.</p>\n"
    }
    for (index, group) in leaks.leakGroups.prefix(HeapAnalysis.htmlCycleLimit).enumerated() {
      let number = index + 1
      let title = group.entryCycle.map(names.cycle) ?? names.type(group.summary)
      out += "<article class=\"leak-group\" id=\"group-\(number)\" data-instances=\"\(group.instanceCount)\">"
      out +=
        "<h3><span class=\"count\">\(grouped(group.instanceCount)) ×</span> <span class=\"chain\">\(HTMLPage.escaped(title))</span></h3>"
      out += "<p class=\"muted\">\(count(group.instanceCount, "instance")), \(count(group.objectCount, "object")), "
      out += "\(grouped(group.retainedSize)) bytes retained; fingerprint <span class=\"fingerprint\">\(group.fingerprint)</span></p>"
      if let cycle = group.entryCycle {
        out += HTMLPage.diagram(CycleDiagram(cycle: cycle, names: names), id: "g\(number)", graphviz: graphviz)
      }
      out += "<details data-group=\"\(index)\"><summary>Instances (\(grouped(group.instanceCount)))</summary></details></article>\n"
    }
    if leaks.leakGroups.count > HeapAnalysis.htmlCycleLimit {
      // The script lists the rest, a page at a time, from the data.
      out += "<p class=\"note\">The first \(grouped(HeapAnalysis.htmlCycleLimit)) groups are drawn; "
      out += "the other \(grouped(leaks.leakGroups.count - HeapAnalysis.htmlCycleLimit)) are listed below.</p>"
      out += "<div id=\"more-groups\" data-from=\"\(HeapAnalysis.htmlCycleLimit)\"></div>\n"
    }
    return out
  }

  /// The cycles no leak group draws, each shape (fingerprint) once with how many there are.
  private func cyclesHTML(_ listing: CycleListing, foldedLine: String?, graphviz: ((String) -> String?)?) -> String {
    var shapes: [(cycle: RetainCycle, remark: String?, count: Int)] = []
    var position: [Fingerprint: Int] = [:]
    for (componentIndex, place, _) in listing.listed {
      if case .leaked(group: .some) = place { continue }
      for cycle in analysis.cycles.components[componentIndex].cycles {
        if let index = position[cycle.fingerprint] {
          shapes[index].count += 1
        } else {
          position[cycle.fingerprint] = shapes.count
          shapes.append((cycle, place.remark, 1))
        }
      }
    }
    var out = "<h2>Other retain cycles (\(grouped(shapes.reduce(0) { $0 + $1.count })))</h2>\n"
    if shapes.isEmpty { out += "<p class=\"muted\">None besides the leak groups’.</p>\n" }
    for (index, shape) in shapes.prefix(HeapAnalysis.htmlCycleLimit).enumerated() {
      let heading = "\(grouped(shape.count)) ×" + (shape.remark.map { " (\($0))" } ?? "")
      out += HeapAnalysis.cycleArticle(shape.cycle, heading: heading, id: "c\(index + 1)", names: names, graphviz: graphviz)
    }
    if shapes.count > HeapAnalysis.htmlCycleLimit {
      out +=
        "<p class=\"note\">\(grouped(shapes.count - HeapAnalysis.htmlCycleLimit)) more shapes are not drawn; the JSON report lists them.</p>\n"
    }
    if let foldedLine { out += "<p class=\"note\">\(HTMLPage.escaped(foldedLine)); the JSON report lists them too.</p>\n" }
    return out
  }

  /// The keys, documented in the page.
  private static let keysHTML = """
    <details id="keys"><summary>Keys and links</summary><dl>
    <dt><kbd>/</kbd></dt><dd>search types by name (a part of it, any case)</dd>
    <dt><kbd>j</kbd> <kbd>k</kbd> or <kbd>↓</kbd> <kbd>↑</kbd></dt><dd>select the next or previous row</dd>
    <dt><kbd>Enter</kbd></dt><dd>open the selected object in the inspector (a type: list its largest instances)</dd>
    <dt><kbd>l</kbd> <kbd>h</kbd> or <kbd>→</kbd> <kbd>←</kbd></dt><dd>expand or collapse the selected node of the dominator tree</dd>
    <dt><kbd>1</kbd> … <kbd>5</kbd></dt><dd>Summary, Types, Dominators, Leaks, Inspector</dd>
    <dt><kbd>?</kbd></dt><dd>show or hide this list</dd>
    <dt><code>#object=42</code>, <code>#view=types</code></dt><dd>links to an object or a view; the back button returns</dd>
    </dl></details>

    """

  private static let style = """
    nav.views { display: flex; gap: 4px; align-items: center; flex-wrap: wrap; margin: 12px 0; border-bottom: 1px solid var(--line); }
    nav.views a { padding: 6px 14px; text-decoration: none; color: var(--muted); border-bottom: 2px solid transparent; }
    nav.views a[aria-current] { color: var(--fg); border-bottom-color: var(--accent); font-weight: 600; }
    #search { margin-left: auto; padding: 5px 10px; border: 1px solid var(--line); border-radius: 6px; min-width: 260px; font: inherit; }
    td.n, span.n { text-align: right; font-variant-numeric: tabular-nums; }
    .row.selected { outline: 2px solid var(--accent); outline-offset: -2px; background: var(--node); }
    a.obj { color: var(--accent); text-decoration: none; font-family: ui-monospace, Menlo, monospace; font-size: 12.5px; }
    a.obj:hover { text-decoration: underline; } .oid { color: var(--muted); }
    .toggle { border: none; background: none; cursor: pointer; width: 18px; padding: 0; color: var(--muted); }
    #types th { cursor: pointer; user-select: none; } .type-row { cursor: pointer; }
    .tree-head, .tree-row { display: grid; grid-template-columns: 1fr 130px 90px 70px; gap: 8px; padding: 3px 6px; border-bottom: 1px solid var(--line); }
    .tree-head { font-weight: 600; background: #f6f8fb; }
    .tree-row.more { display: block; } button.more { margin: 6px 0; font: inherit; cursor: pointer; }
    article.leak-group, #view-leaks article.cycle { content-visibility: auto; contain-intrinsic-size: auto 320px; }
    article.leak-group { border: 1px solid var(--line); border-radius: 8px; padding: 14px 16px; margin: 12px 0; }
    .leak-group .count { color: var(--bad); }
    ul.refs, ul.plain, ol.instances { padding-left: 20px; } ul.refs li, ol.instances li { margin: 2px 0; }
    .ownership { font-size: 11px; text-transform: uppercase; color: var(--muted); border: 1px solid var(--line); border-radius: 4px; padding: 0 4px; }
    li.weak, li.unowned, li.unmanaged, .not-taken { color: var(--muted); }
    .not-taken { font-size: 12.5px; margin-left: 18px; }
    ol.stack li code { font-size: 12px; } table.facts th { width: 160px; background: none; }
    #keys { margin: 24px 0; color: var(--muted); } #keys dl { display: grid; grid-template-columns: 220px 1fr; gap: 2px 12px; }
    #keys dd { margin: 0; }
    """
}
