extension CycleReport {
  /// Graphviz: one cluster per strongly connected component, with the objects and strong
  /// references of its listed cycles. Render with `dot -Tsvg cycles.dot -o cycles.svg`.
  ///
  /// ```text
  /// digraph "retain cycles" {
  ///   node [shape=box, fontname="Helvetica"];
  ///   edge [fontname="Helvetica", fontsize=10];
  ///   subgraph cluster_1 {
  ///     label="component 1: 1 cycle";
  ///     "o2" [label="App.Feed\nobject 2"];
  ///     "o3" [label="closure #1 in App.Feed.load()\nobject 3"];
  ///     "o2" -> "o3" [label="onUpdate"];
  ///     "o3" -> "o2" [label="capture #0: Feed"];
  ///   }
  ///   …
  /// }
  /// ```
  public func renderDOT() -> String {
    var out = "digraph \"retain cycles\" {\n  node [shape=box, fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=10];\n"
    for (index, component) in components.enumerated() where !component.cycles.isEmpty {
      out += "  subgraph cluster_\(index + 1) {\n"
      out += "    label=\(doubleQuoted("component \(index + 1): \(count(component.foundCycleCount, "cycle"))"));\n"
      var nodes: [Int64: String] = [:]
      var edges: Set<String> = []
      var edgeOrder: [String] = []
      for cycle in component.cycles {
        for (position, element) in cycle.elements.enumerated() {
          nodes[element.objectID] = element.typeName
          let next = cycle.elements[(position + 1) % cycle.elements.count]
          let edge = "    \"o\(element.objectID)\" -> \"o\(next.objectID)\" [label=\(doubleQuoted(element.reference ?? ""))];\n"
          if edges.insert(edge).inserted { edgeOrder.append(edge) }
        }
      }
      for (id, type) in nodes.sorted(by: { $0.key < $1.key }) {
        out += "    \"o\(id)\" [label=\(doubleQuoted("\(type)\nobject \(id)"))];\n"
      }
      out += edgeOrder.joined()
      out += "  }\n"
    }
    return out + "}\n"
  }
}
