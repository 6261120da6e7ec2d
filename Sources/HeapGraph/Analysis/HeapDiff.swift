/// What grew between two snapshots of the same program: live objects per type, and findings
/// (cycles, leak groups) by fingerprint, so that a leak that repeats per iteration stands out.
///
/// ```text
/// Growth from before.json to after.json:
/// Names from App are written without their module.
///   Entry: 0 -> 2 (+2)
///   Cache: 0 -> 1 (+1)
///   Vendor.Buffer: 0 -> 1 (+1)
///   Vendor.Pool: 0 -> 1 (+1)
/// New or growing findings:
///   c69426e4d2ea887e: 0 -> 1 (+1)  cycle: Cache.entries["a"] → Entry.owner → Cache
///   387510702306f2fb: 0 -> 1 (+1)  leak: Cache.entries["a"] → Entry.owner → Cache
///   6a1c94cfb18afabc: 0 -> 1 (+1)  leak: Vendor.Pool
/// ```
///
/// With a growing collection, the paths that hold the new objects are listed too:
///
/// ```text
/// Retaining paths that grew:
///   global App: App.feeds[*] -> Feed: 2 -> 5 (+3)
/// ```
///
/// A retaining path is the shortest chain of strong references from a root to an object, as
/// types and labels, with subscripts collapsed (`feeds[3]` and `feeds[4]` are both `feeds[*]`),
/// so the objects one collection or one field accumulates are counted together. Paths are
/// listed only for the types that grew.
public struct HeapDiff: Sendable {
  /// A count that changed.
  public struct Growth: Sendable, Hashable {
    /// A type name, or a finding's summary.
    public var name: String
    /// The finding's fingerprint (nil for a type).
    public var fingerprint: Fingerprint?
    /// The finding, for reports that write its names their own way (nil for a type or a path).
    public var finding: HeapFinding? = nil
    public var before: Int
    public var after: Int
    public var delta: Int { after - before }
  }

  /// Types with more live objects in the new snapshot, largest growth first.
  public let growingTypes: [Growth]
  /// Retaining paths (from the new snapshot) to more objects of a growing type than before,
  /// largest growth first; at most `maxPaths`.
  public let growingPaths: [Growth]
  /// Findings that are new or have more instances, largest growth first.
  public let growingFindings: [Growth]
  /// Types with fewer objects (for the record).
  public let shrinkingTypeCount: Int

  /// Compares two analyses of snapshots of the same program; both should use the same options.
  ///
  /// - Parameters:
  ///   - oldAnalysis: the analysis of the earlier snapshot.
  ///   - newAnalysis: the analysis of the later snapshot.
  ///   - maxPaths: how many growing retaining paths to list.
  public init(old oldAnalysis: HeapAnalysis, new newAnalysis: HeapAnalysis, maxPaths: Int = 20) {
    func counts(_ graph: ObjectGraph) -> [String: Int] {
      var counts: [String: Int] = [:]
      for node in graph.nodes { counts[graph.typeName(of: node), default: 0] += 1 }
      return counts
    }
    func findings(_ analysis: HeapAnalysis) -> [Fingerprint: HeapFinding] {
      Dictionary(uniqueKeysWithValues: analysis.findings.map { ($0.fingerprint, $0) })
    }
    let old = oldAnalysis.graph
    let new = newAnalysis.graph
    let before = counts(old)
    let after = counts(new)
    growingTypes = after.compactMap { name, count in
      let previous = before[name] ?? 0
      return count > previous ? Growth(name: name, fingerprint: nil, before: previous, after: count) : nil
    }.sorted { ($0.delta, $1.name) > ($1.delta, $0.name) }
    let grownTypes = Set(growingTypes.map(\.name))
    let oldPaths = RetainingPaths(old, shortestPaths: oldAnalysis.shortestPaths)
    let newPaths = RetainingPaths(new, shortestPaths: newAnalysis.shortestPaths)
    growingPaths = newPaths.counts.compactMap { path, count -> (path: UInt64, before: Int, after: Int)? in
      let previous = oldPaths.counts[path] ?? 0
      guard count > previous, grownTypes.contains(new.typeName(of: newPaths.example[path]!)) else { return nil }
      return (path, previous, count)
    }
    .sorted { ($0.after - $0.before, $1.path) > ($1.after - $1.before, $0.path) }
    .prefix(maxPaths)
    .map { Growth(name: newPaths.describe(newPaths.example[$0.path]!), fingerprint: nil, before: $0.before, after: $0.after) }
    shrinkingTypeCount = before.filter { name, count in (after[name] ?? 0) < count }.count
    let oldFindings = findings(oldAnalysis)
    growingFindings = findings(newAnalysis).values.compactMap { finding in
      let previous = oldFindings[finding.fingerprint]?.count ?? 0
      return finding.count > previous
        ? Growth(
          name: "\(finding.kind.rawValue): \(finding.summary)", fingerprint: finding.fingerprint, finding: finding, before: previous,
          after: finding.count)
        : nil
    }.sorted { ($0.delta, $1.name) > ($1.delta, $0.name) }
  }

  /// Whether anything grew.
  public var hasGrowth: Bool { !growingTypes.isEmpty || !growingFindings.isEmpty }

  /// Readable names, with the home module of the growing types and findings (the text and HTML
  /// reports').
  public var nameStyle: NameStyle {
    .readable(forTypeNames: growingTypes.map(\.name) + growingFindings.compactMap(\.finding).flatMap { $0.links.map(\.typeName) })
  }

  /// The diff for people.
  ///
  /// - Parameters:
  ///   - old: how to name the earlier snapshot.
  ///   - new: how to name the later snapshot.
  ///   - names: how to write Swift names; by default readable, with the home module of the
  ///     growing types and findings.
  public func renderText(old: String, new: String, names: NameStyle? = nil) -> String {
    reportText(old: old, new: new, names: names).description
  }

  /// The diff as lines with their roles (see ``renderText(old:new:names:)``).
  package func reportText(old: String, new: String, names: NameStyle? = nil) -> ReportText {
    var text = ReportText()
    guard hasGrowth else {
      text.append("No growth from \(old) to \(new).", as: .success)
      return text
    }
    let names = names ?? nameStyle
    text.append("Growth from \(old) to \(new):", as: .heading)
    if let note = names.homeModuleNote { text.append(note, as: .detail) }
    for growth in growingTypes {
      text.append(
        "\(names.type(growth.name)): \(grouped(growth.before)) -> \(grouped(growth.after)) (+\(grouped(growth.delta)))", indent: 2)
    }
    if !growingPaths.isEmpty {
      text.append("Retaining paths that grew:", as: .heading)
      for growth in growingPaths {
        text.append("\(growth.name): \(grouped(growth.before)) -> \(grouped(growth.after)) (+\(grouped(growth.delta)))", indent: 2)
      }
    }
    if !growingFindings.isEmpty {
      text.append("New or growing findings:", as: .heading)
      for growth in growingFindings {
        let name = growth.finding.map { "\($0.kind.rawValue): \(names.summary(of: $0))" } ?? growth.name
        text.append("\(growth.fingerprint?.description ?? ""): \(growth.before) -> \(growth.after) (+\(growth.delta))  \(name)", indent: 2)
      }
    }
    return text
  }

  /// The diff for machines.
  public func renderJSON() -> String {
    var writer = JSONWriter()
    writer.beginObject(multiline: true)
    writer.field("format", "swift-heap-diff")
    writer.field("version", 1)
    for (key, list) in [("growingTypes", growingTypes), ("growingPaths", growingPaths), ("growingFindings", growingFindings)]
      as [(StaticString, [Growth])]
    {
      writer.key(key)
      writer.beginArray(multiline: true)
      for growth in list {
        writer.beginObject()
        writer.field("name", growth.name)
        if let fingerprint = growth.fingerprint { writer.field("fingerprint", fingerprint.description) }
        writer.field("before", growth.before)
        writer.field("after", growth.after)
        writer.endObject()
      }
      writer.endArray()
    }
    writer.endObject()
    return writer.finishDocumentText()
  }
}
