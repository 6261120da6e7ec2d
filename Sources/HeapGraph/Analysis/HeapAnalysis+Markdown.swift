extension HeapAnalysis {
  /// Markdown for CI step summaries, as a gate without a baseline writes it (every finding is
  /// new; see ``GateOutcome/renderMarkdown(acceptCommand:names:)``), in the order of the text
  /// report (``renderText(settingNames:names:allCycles:)``): the leak groups, the survivors, then
  /// the cycles, those of leaked objects pointing to their leak. The reachable cycles of
  /// dependencies' types are counted in one paragraph after the table unless `allCycles`. What
  /// holds the memory follows (`HeapMemory.renderMarkdown(names:)`) when the snapshot has roots.
  ///
  /// ```text
  /// ## Leak gate: 4 new findings
  ///
  /// | | kind | fingerprint | finding |
  /// | --- | --- | --- | --- |
  /// | new | leak | `387510702306f2fb` | Cache.entries["a"] → Entry.owner → Cache |
  /// | new | cycle | `c69426e4d2ea887e` | Cache.entries["a"] → Entry.owner → Cache (leaked: leak 387510702306f2fb) |
  /// …
  /// ```
  ///
  /// - Parameters:
  ///   - allCycles: whether to list the reachable cycles of dependencies' types too.
  ///   - settingNames: how to name the setting that lists folded cycles.
  ///   - names: how to write Swift names; by default readable, with the home module of the
  ///     report's types.
  public func renderMarkdown(allCycles: Bool = false, settingNames: ReportSettingNames = .configuration, names: NameStyle? = nil) -> String
  {
    let listing = CycleListing(analysis: self, allCycles: allCycles)
    var cyclePosition: [Fingerprint: Int] = [:]
    var leakOfCycle: [Fingerprint: Fingerprint?] = [:]  // nil: not every instance is leaked in one group
    for (position, (component, place, _)) in listing.listed.enumerated() {
      for cycle in cycles.components[component].cycles {
        if cyclePosition[cycle.fingerprint] == nil { cyclePosition[cycle.fingerprint] = position }
        let leak: Fingerprint? = if case .leaked(let group?) = place { leaks.leakGroups[group].fingerprint } else { nil }
        if let previous = leakOfCycle[cycle.fingerprint] {
          leakOfCycle[cycle.fingerprint] = .some(previous == leak ? leak : nil)
        } else {
          leakOfCycle[cycle.fingerprint] = .some(leak)
        }
      }
    }
    let leakPosition = Dictionary(leaks.leakGroups.enumerated().map { ($1.fingerprint, $0) }, uniquingKeysWith: min)
    let survivorPosition = Dictionary(leaks.survivors.enumerated().map { ($1.fingerprint, $0) }, uniquingKeysWith: min)
    func position(_ finding: HeapFinding) -> Int? {
      switch finding.kind {
      case .leak: leakPosition[finding.fingerprint]
      case .survivor: survivorPosition[finding.fingerprint]
      case .cycle: cyclePosition[finding.fingerprint]
      }
    }
    // A cycle that no listed component has is folded.
    let listed = findings.filter { $0.kind != .cycle || cyclePosition[$0.fingerprint] != nil }.enumerated()
      .sorted { (position($0.element) ?? .max, $0.offset) < (position($1.element) ?? .max, $1.offset) }.map(\.element)
    var remarks: [Fingerprint: String] = [:]
    for case (let cycle, let leak??) in leakOfCycle { remarks[cycle] = "leaked: leak \(leak)" }
    let names = names ?? nameStyle(listing)
    let findingsSection = GateOutcome(findings: listed, baseline: Baseline()).renderMarkdown(
      acceptCommand: nil, names: names, remarks: remarks,
      footer: listing.foldingOnly { cyclePosition[$0] == nil }.foldedLine(names: names, settingNames: settingNames))
    guard leaks.hasRoots else { return findingsSection }
    let memorySection = HeapMemory(analysis: self).renderMarkdown(names: names)
    return memorySection.isEmpty ? findingsSection : findingsSection + "\n" + memorySection
  }
}
