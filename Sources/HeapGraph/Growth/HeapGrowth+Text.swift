extension HeapGrowth {
  /// The growth report for people (the example in ``HeapGrowth``'s documentation).
  ///
  /// - Parameters:
  ///   - snapshots: how to name the snapshots, in order (their files).
  ///   - names: how to write Swift names; by default readable, with the home module of what grew.
  public func renderText(snapshots: [String], names: NameStyle? = nil) -> String {
    reportText(snapshots: snapshots, names: names).description
  }

  /// The report as lines with their roles (see ``renderText(snapshots:names:)``).
  package func reportText(snapshots: [String], names: NameStyle? = nil) -> ReportText {
    let names = names ?? nameStyle
    var text = ReportText()
    let steps = snapshotCount - 1
    let rule = minimumGrowingSteps == steps ? "in every step" : "in at least \(minimumGrowingSteps) of \(steps) steps"
    let span = snapshots.count >= 2 ? " (\(snapshots[0]) … \(snapshots[snapshots.count - 1]))" : ""
    text.append(
      "Objects: " + totals.map { grouped($0.objects) }.joined(separator: " -> ") + "; bytes: "
        + totals.map { grouped($0.bytes) }.joined(separator: " -> "))
    let memories = metadata.compactMap(\.memory)
    if memories.count == snapshotCount {
      text.append("Memory per snapshot:")
      for (index, memory) in memories.enumerated() {
        text.append("\(index < snapshots.count ? snapshots[index] : "snapshot \(index + 1)"): \(memory.summary)", as: .detail, indent: 2)
      }
      if let memory {
        let from = memoryBaseline == 0 ? "" : "From snapshot \(memoryBaseline + 1) on (the first step warms the program up): "
        text.append(from + memory.summary, as: memory.cause == .steady ? .success : .note, indent: 2)
      }
    }
    guard hasGrowth else {
      text.append("Nothing grew \(rule) over \(snapshotCount) snapshots\(span).", as: .success)
      return text
    }
    text.append("Growth over \(snapshotCount) snapshots\(span): \(count(findings.count, "thing")) grew \(rule)", as: .heading)
    if let note = names.homeModuleNote { text.append(note, as: .detail) }
    for (index, finding) in findings.enumerated() {
      let title =
        switch finding.kind {
        case .path: "\(finding.origin ?? "root"): \(names.chain(finding.links))"
        case .leak: "leaked: \(names.leak(finding.links, summary: finding.summary))"
        }
      text.append([.itemNumber(index + 1), " \(title)"], indent: 2)
      let noun = finding.kind == .path ? "objects" : "instances"
      text.append(
        "\(noun) \(finding.counts.map(grouped).joined(separator: " -> ")) (\(Self.perStep(finding.countPerStep)) per step), "
          + "bytes \(Self.perStep(finding.bytesPerStep)) per step", indent: 5)
      if let growing = finding.growing {
        text.append(
          "growing: \(names.link(type: growing.typeName, reference: growing.reference))"
            + (finding.growsInSize ? " (its own size: values in the collections it owns)" : ""), indent: 5)
      }
      if let holds = finding.holdsSummary(names: names) { text.append("holds: \(holds)", indent: 5) }
      for site in finding.addedAt {
        text.append(["added at "] + .frame(site.site, names: names) + [": \(count(site.count, "object"))"], indent: 5)
      }
      text.append("fingerprint \(finding.fingerprint)", as: .detail, indent: 5)
    }
    if !growingTypes.isEmpty {
      text.append("")
      text.append("Types that grew \(rule):", as: .heading)
      for type in growingTypes {
        text.append("\(names.type(type.typeName)): \(type.counts.map(grouped).joined(separator: " -> "))", indent: 2)
      }
    }
    return text
  }

  /// `+1`, `+2.5`, `-3`, `+5,310`: an average per step (or per iteration of a test).
  package static func perStep(_ value: Double) -> String {
    // Tenths only where they say something: below 100.
    let rounded = abs(value) >= 100 ? value.rounded() : (value * 10).rounded() / 10
    let text = rounded == rounded.rounded() ? grouped(Int(rounded)) : String(rounded)
    return rounded >= 0 ? "+" + text : text
  }
}

extension HeapGrowth.Finding {
  /// What the finding's objects hold, grown with them, with their counts per snapshot
  /// (`Listener 1 -> 2 -> 3 -> 4, Worker 1 -> 2 -> 3 -> 4`); `nil` when they hold nothing that
  /// grew.
  package func holdsSummary(names: NameStyle, arrow: String = " -> ") -> String? {
    guard !holds.isEmpty else { return nil }
    return holds.map { "\(names.type($0.typeName)) \($0.counts.map(grouped).joined(separator: arrow))" }.joined(separator: ", ")
  }
}
