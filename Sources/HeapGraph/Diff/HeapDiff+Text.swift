extension HeapDiff {
  /// How many types, paths, allocation groups and findings the text report lists in each section
  /// by default; the JSON and HTML reports list them all.
  public static let textRowLimit = 20

  /// The comparison for people (the example in ``HeapDiff``'s documentation).
  ///
  /// - Parameters:
  ///   - old: how to name the earlier snapshot.
  ///   - new: how to name the later snapshot.
  ///   - names: how to write Swift names; by default readable, with the home module of what
  ///     changed.
  ///   - limit: how many rows each section lists at most.
  public func renderText(old: String, new: String, names: NameStyle? = nil, limit: Int = textRowLimit) -> String {
    reportText(old: old, new: new, names: names, limit: limit).description
  }

  /// The comparison as lines with their roles (see ``renderText(old:new:names:limit:)``).
  package func reportText(old: String, new: String, names: NameStyle? = nil, limit: Int = textRowLimit) -> ReportText {
    var text = ReportText()
    guard !types.isEmpty || !paths.isEmpty || !findings.isEmpty else {
      text.append("No change from \(old) to \(new).", as: .success)
      return text
    }
    let names = names ?? nameStyle
    text.append("From \(old) to \(new):", as: .heading)
    text.append("objects \(Self.change(oldTotal.count, newTotal.count)), bytes \(Self.change(oldTotal.bytes, newTotal.bytes))", indent: 2)
    if let note = names.homeModuleNote { text.append(note, as: .detail) }
    func section<Subject>(_ title: String, _ changes: [Change<Subject>], noun: String, name: (Subject) -> String) {
      guard !changes.isEmpty else { return }
      text.append("\(title) (\(Self.statusCounts(changes))):", as: .heading)
      for change in changes.prefix(limit) { text.append("\(Self.line(change, name: name(change.subject)))", indent: 2) }
      if changes.count > limit {
        text.append("… \(count(changes.count - limit, noun)) not shown (the JSON and HTML reports list all)", as: .detail, indent: 2)
      }
    }
    section("Types, by bytes added", types, noun: "type") { names.type($0) }
    section("Retaining paths, by objects added", paths, noun: "path") { "\($0.origin): \(names.chain($0.links))" }
    appendAllocatedBetween(to: &text, names: names, limit: limit)
    section("Findings", findings, noun: "finding") { finding in
      "\(finding.kind.rawValue): \(names.summary(of: finding)) (\(finding.fingerprint))"
    }
    return text
  }

  /// The objects allocated between the snapshots, by type and by line.
  private func appendAllocatedBetween(to text: inout ReportText, names: NameStyle, limit: Int) {
    let between = allocatedBetween
    let total = between.total.count == 0 ? "none" : "\(count(between.total.count, "object")), \(count(between.total.bytes, "byte"))"
    text.append("Allocated between them (\(between.ruleDescription)): \(total)", as: .heading)
    guard between.total.count > 0 else { return }
    text.append("by type:", indent: 2)
    for group in between.byType.prefix(limit) {
      text.append("\(names.type(group.name)): \(count(group.count, "object")), \(count(group.bytes, "byte"))", indent: 4)
    }
    if between.byType.count > limit { text.append("… \(count(between.byType.count - limit, "type")) not shown", as: .detail, indent: 4) }
    guard !between.bySite.isEmpty else { return }
    text.append("by allocation site:", indent: 2)
    for group in between.bySite.prefix(limit) {
      guard let site = group.site else { continue }
      text.append(.frame(site, names: names) + [": \(count(group.count, "object")), \(count(group.bytes, "byte"))"], indent: 4)
    }
    if between.bySite.count > limit { text.append("… \(count(between.bySite.count - limit, "site")) not shown", as: .detail, indent: 4) }
    if between.withoutSite.count > 0 {
      text.append(
        "without a stack: \(count(between.withoutSite.count, "object")), \(count(between.withoutSite.bytes, "byte"))", as: .detail,
        indent: 4)
    }
  }

  /// `grown  Response: 2 -> 5 (+3), bytes 96 -> 240 (+144)`; without bytes when neither snapshot
  /// records them (and for findings).
  private static func line<Subject>(_ change: Change<Subject>, name: String) -> String {
    let status = change.status.rawValue + String(repeating: " ", count: max(0, 6 - change.status.rawValue.count))
    let bytes = change.before.bytes == 0 && change.after.bytes == 0 ? "" : ", bytes " + Self.change(change.before.bytes, change.after.bytes)
    return "\(status) \(name): \(Self.change(change.before.count, change.after.count))\(bytes)"
  }

  /// `2 -> 5 (+3)`.
  static func change(_ before: Int, _ after: Int) -> String {
    "\(grouped(before)) -> \(grouped(after)) (\(signed(after - before)))"
  }

  /// `+3`, `-1`, `+0`.
  static func signed(_ value: Int) -> String { value >= 0 ? "+" + grouped(value) : grouped(value) }

  /// `1 new, 2 grown, 1 shrunk, 1 gone`: the changes of each status, in the order of ``Change/Status``.
  static func statusCounts<Subject>(_ changes: [Change<Subject>]) -> String {
    Change<Subject>.Status.allCases.compactMap { status in
      let number = changes.count { $0.status == status }
      return number == 0 ? nil : "\(grouped(number)) \(status.rawValue)"
    }.joined(separator: ", ")
  }
}
