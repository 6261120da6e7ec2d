extension HeapGrowth {
  /// The growth report as Markdown, for a pull request comment or a CI job summary: one table
  /// row per thing that grew, with its counts, bytes per step and the line that added the most.
  public func renderMarkdown(snapshots: [String], names: NameStyle? = nil) -> String {
    let names = names ?? nameStyle
    let steps = snapshotCount - 1
    let rule = minimumGrowingSteps == steps ? "in every step" : "in at least \(minimumGrowingSteps) of \(steps) steps"
    var text = "## Heap growth over \(snapshotCount) snapshots\n\n"
    guard hasGrowth else { return text + "Nothing grew \(rule).\n" }
    text += "\(count(findings.count, "thing")) grew \(rule).\n\n"
    if let note = names.homeModuleNote { text += "_\(note)_\n\n" }
    text += "| # | What grew | Counts | Bytes per step | Added at |\n| ---: | --- | --- | ---: | --- |\n"
    for (index, finding) in findings.enumerated() {
      let title =
        switch finding.kind {
        case .path: "\(finding.origin ?? "root"): \(names.chain(finding.links))"
        case .leak: "leaked: \(names.leak(finding.links, summary: finding.summary))"
        }
      let holds = finding.holdsSummary(names: names, arrow: " → ").map { " (holds \($0))" } ?? ""
      let site = finding.addedAt.first.map { "\(names.frame($0.site)) (\(count($0.count, "object")))" } ?? ""
      text +=
        "| \(index + 1) | \(markdownEscaped(title + holds)) | \(finding.counts.map(grouped).joined(separator: " → ")) | "
        + "\(Self.perStep(finding.bytesPerStep)) | \(markdownEscaped(site)) |\n"
    }
    return text
  }
}
