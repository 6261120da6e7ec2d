extension HeapAnalysis {
  /// The report for people, what a developer acts on first: when the snapshot has roots, the
  /// leaked objects and survivors (see ``LeakAnalysis/renderText(names:)``), then the retain
  /// cycles by component (see ``CycleReport/renderText(settingNames:names:)``): those of the
  /// leaked objects, each pointing to its leak group, then those still reachable, the package's
  /// own first (``Options/ownCode``). The reachable cycles of dependencies' types are folded into
  /// one counted line unless `allCycles` (see <doc:ReadingAReport>). Without roots, the cycles come
  /// first, the package's own first, and nothing is folded.
  ///
  /// The header ends with the process's memory when the snapshot recorded it (`Memory at
  /// capture: RSS 412 MiB (anonymous 380 MiB), malloc 300 MiB in use + 80 MiB free in 8 arenas,
  /// Swift objects 51,234 (12 MiB)`).
  ///
  /// ```text
  /// 2 retain cycles in 2 strongly connected components
  /// 8 objects, 9 references (7 strong); cycles of up to 20 objects
  /// Names from App are written without their module.
  ///
  /// Leaks: 5 objects unreachable from every root, in 2 groups
  ///   1) 1 × Vendor.Pool  (2 objects, 1,048 bytes retained; fingerprint 6a1c94cfb18afabc; first object 20)
  ///   2) 1 × Cache.entries["a"] → Entry.owner → Cache  (3 objects, 144 bytes retained; fingerprint 387510702306f2fb; first object 10)
  ///
  /// Survivors: 1 object expected dead still reachable
  ///   1) global App.shared: AppState.feeds[0] → Feed
  ///      suspect ~~~ AppState.feeds[0]; 80 bytes retained; fingerprint 1aef726e22a7cf71
  ///
  /// Component 2: 2 objects, 1 cycle (leaked: leak group 2 above)
  ///   1) Cache.entries["a"] → Entry.owner → Cache
  ///      …
  ///
  /// Component 1: 2 objects, 1 cycle (still reachable)
  ///   1) Feed.onUpdate → closure #1 in Feed.load().capture #0: Feed → Feed
  ///      …
  /// ```
  ///
  /// - Parameters:
  ///   - settingNames: how to name the settings that show more when a component is cut short or
  ///     cycles are folded.
  ///   - names: how to write Swift names; by default readable, with the home module of all the
  ///     report's types.
  ///   - allCycles: whether to list the reachable cycles of dependencies' types too.
  public func renderText(settingNames: ReportSettingNames = .configuration, names: NameStyle? = nil, allCycles: Bool = false) -> String {
    reportText(settingNames: settingNames, names: names, allCycles: allCycles).description
  }

  /// The text report as lines with their roles (see ``renderText(settingNames:names:allCycles:)``).
  package func reportText(settingNames: ReportSettingNames = .configuration, names: NameStyle? = nil, allCycles: Bool = false) -> ReportText
  {
    let listing = CycleListing(analysis: self, allCycles: allCycles)
    let names = names ?? nameStyle(listing)
    var text = cycles.headerText(names: names)
    if let memory = graph.metadata.memory?.summary, !memory.isEmpty { text.append("Memory at capture: \(memory)", as: .detail) }
    if leaks.hasRoots {
      text.append(contentsOf: leaks.reportText(names: names))
      let memory = HeapMemory(analysis: self).reportText(names: names)
      if !memory.lines.isEmpty {
        text.append("")
        text.append(contentsOf: memory)
      }
    }
    cycles.appendComponents(
      listing.listed.map { ($0.component, $0.place.remark, $0.isOwn ? 0 : 1) }, settingNames: settingNames, names: names,
      ownCode: options.ownCode, to: &text)
    if let folded = listing.foldedLine(names: names, settingNames: settingNames) {
      text.append("")
      text.append(folded, as: .note)
    }
    cycles.appendLongCyclesNote(settingNames: settingNames, to: &text)
    if !leaks.hasRoots { text.append(contentsOf: leaks.reportText(names: names)) }
    return text
  }

  /// Readable names, with the home module of the types of every finding.
  public var nameStyle: NameStyle {
    .readable(forTypeNames: cycles.cycles.flatMap { $0.elements.map(\.typeName) } + leaks.typeNames)
  }

  /// Readable names, with the home module of the types a report with `listing` shows (the
  /// listed cycles', the leaks' and survivors', and one cycle of each folded shape): the
  /// package's own module among them that declares most, so that the reader's own names are the
  /// short ones, or else the module that declares most of them.
  func nameStyle(_ listing: CycleListing) -> NameStyle {
    let listed = listing.listed.flatMap { cycles.components[$0.component].cycles } + listing.foldedShapes.map(\.cycle)
    let typeNames = listed.flatMap { $0.elements.map(\.typeName) } + leaks.typeNames
    let ownTypeNames = typeNames.filter { ReadableName.module(of: $0).map(listing.ownModules.contains) == true }
    return .readable(forTypeNames: ownTypeNames.isEmpty ? typeNames : ownTypeNames)
  }
}
