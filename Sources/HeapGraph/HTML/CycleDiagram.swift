/// A retain cycle drawn as SVG: its objects top to bottom, each reference an arrow labelled
/// with the field or capture, and the reference that closes the cycle running back up on the
/// left. Laid out by this code, so it needs nothing installed; ``graphviz`` is the Graphviz
/// source of the same drawing, for `dot -Tsvg` when it is installed.
public struct CycleDiagram: Sendable {
  /// An object of the cycle and the reference it holds on the next.
  public struct Node: Sendable {
    /// The object's type, as the report writes it.
    public var title: String
    /// A second line: where it was allocated or written.
    public var detail: String?
    /// The label of its reference to the next object.
    public var reference: String?
    /// Whether it is a closure context (drawn in another colour).
    public var isClosure: Bool
  }

  public var nodes: [Node]

  /// The objects of `links`, named in `names`, each with its site (`sites`, in the same order)
  /// as its second line: where it was allocated, or where a closure is written.
  init(links: [HeapFinding.Link], names: NameStyle, sites: [StackFrame?] = []) {
    nodes = links.enumerated().map { index, link in
      let isClosure = ObjectKind.inferred(fromTypeName: link.typeName) == .closureContext
      let site = index < sites.count ? sites[index]?.sourceLocation : nil
      return Node(
        title: names.type(link.typeName), detail: site.map { SitePhrase.of(kind: nil, typeName: link.typeName) + " " + $0 },
        reference: link.reference,
        isClosure: isClosure)
    }
  }

  /// The cycle's objects with their allocation sites.
  init(cycle: RetainCycle, names: NameStyle) {
    self.init(links: cycle.links, names: names, sites: cycle.elements.map(\.allocationSite.allocationSite))
  }

  private static let characterWidth = 7.3
  private static let boxHeight = 42
  private static let gap = 44
  private static let left = 48
  private static let maxTitle = 72

  /// The SVG; `id` keeps its arrowhead's id apart from other diagrams on the page.
  public func svg(id: String) -> String {
    let longest = nodes.map { min(Self.clipped($0.title).count, Self.maxTitle) }.max() ?? 10
    let width = max(200, Int(Double(longest) * Self.characterWidth) + 28)
    let labelWidth = Int(Double(nodes.compactMap { $0.reference?.count }.max() ?? 0) * Self.characterWidth) + 24
    let totalWidth = Self.left + width + max(labelWidth, 40)
    let bottom = Self.top(of: nodes.count - 1) + Self.boxHeight
    let totalHeight = bottom + 44
    let marker = "arrow-\(id)"
    var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"cycle-diagram\" width=\"\(totalWidth)\" height=\"\(totalHeight)\" "
    out += "viewBox=\"0 0 \(totalWidth) \(totalHeight)\" role=\"img\" aria-label=\"retain cycle of \(nodes.count) objects\">"
    out +=
      "<defs><marker id=\"\(marker)\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\">"
    out += "<path d=\"M0,0 L10,5 L0,10 z\" fill=\"#5b6478\"/></marker></defs>"
    let center = Self.left + width / 2
    for (index, node) in nodes.enumerated() {
      let y = Self.top(of: index)
      let fill = node.isClosure ? "#fdf6e7" : "#eef3fc"
      let stroke = node.isClosure ? "#d9a441" : "#2e5aac"
      out += "<g class=\"node\"><title>\(HTMLPage.escaped(node.title))</title>"
      out +=
        "<rect x=\"\(Self.left)\" y=\"\(y)\" width=\"\(width)\" height=\"\(Self.boxHeight)\" rx=\"6\" fill=\"\(fill)\" stroke=\"\(stroke)\"/>"
      let titleY = node.detail == nil ? y + 25 : y + 18
      out += "<text x=\"\(Self.left + 12)\" y=\"\(titleY)\" font-size=\"12\" font-weight=\"600\" fill=\"#1d2433\">"
      out += HTMLPage.escaped(Self.clipped(node.title)) + "</text>"
      if let detail = node.detail {
        out +=
          "<text x=\"\(Self.left + 12)\" y=\"\(y + 34)\" font-size=\"11\" fill=\"#5b6478\">\(HTMLPage.escaped(Self.clipped(detail)))</text>"
      }
      out += "</g>"
      let label = HTMLPage.escaped(node.reference ?? "")
      if index + 1 < nodes.count {
        let from = y + Self.boxHeight
        let to = Self.top(of: index + 1)
        out += "<line x1=\"\(center)\" y1=\"\(from)\" x2=\"\(center)\" y2=\"\(to - 1)\" stroke=\"#5b6478\" marker-end=\"url(#\(marker))\"/>"
        out += "<text class=\"edge\" x=\"\(center + 10)\" y=\"\((from + to) / 2 + 4)\" font-size=\"11.5\" fill=\"#2e5aac\">\(label)</text>"
      } else {
        // Back to the first object: down, left, up the left side, into the first box.
        let firstMiddle = Self.top(of: 0) + Self.boxHeight / 2
        let down = bottom + 22
        out +=
          "<path d=\"M\(center),\(bottom) L\(center),\(down) L\(Self.left - 24),\(down) L\(Self.left - 24),\(firstMiddle) L\(Self.left - 1),\(firstMiddle)\" "
        out += "fill=\"none\" stroke=\"#5b6478\" marker-end=\"url(#\(marker))\"/>"
        out += "<text class=\"edge\" x=\"\(center + 10)\" y=\"\(down - 6)\" font-size=\"11.5\" fill=\"#2e5aac\">\(label)</text>"
      }
    }
    return out + "</svg>"
  }

  /// The same drawing for Graphviz (`dot -Tsvg`).
  public var graphviz: String {
    var out = "digraph cycle {\n  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=11];\n"
    out += "  edge [fontname=\"Helvetica\", fontsize=10, color=\"#5b6478\", fontcolor=\"#2e5aac\"];\n"
    for (index, node) in nodes.enumerated() {
      let label = node.title + (node.detail.map { "\n" + $0 } ?? "")
      out += "  n\(index) [label=\(doubleQuoted(label)), fillcolor=\"\(node.isClosure ? "#fdf6e7" : "#eef3fc")\"];\n"
    }
    for (index, node) in nodes.enumerated() {
      out += "  n\(index) -> n\((index + 1) % nodes.count) [label=\(doubleQuoted(node.reference ?? ""))];\n"
    }
    return out + "}\n"
  }

  private static func top(of index: Int) -> Int { 12 + index * (boxHeight + gap) }

  private static func clipped(_ text: String) -> String { text.count > maxTitle ? String(text.prefix(maxTitle - 1)) + "…" : text }
}
