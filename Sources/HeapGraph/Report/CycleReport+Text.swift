extension CycleReport {
  /// The report for people: each cycle as `Type.label → Type.label → …` with its short form,
  /// grouped by strongly connected component, with the allocation site of each object when the
  /// snapshot has stacks.
  /// Components with exactly the same cycles are shown once, with a count.
  ///
  /// ```text
  /// 2 retain cycles in 2 strongly connected components
  /// 8 objects, 9 references (7 strong); cycles of up to 20 objects
  /// Names from App are written without their module.
  ///
  /// Component 1: 2 objects, 1 cycle
  ///   1) Feed.onUpdate → closure #1 in Feed.load().capture #0: Feed → Feed
  ///      in short: Feed.onUpdate → closure in Feed.load() → Feed
  ///      fingerprint ec82309748476178
  ///      - Feed (object 2, 0x2000) allocated at Screen.show() (Screen.swift:14)
  ///      - closure #1 in Feed.load() (object 3, 0x3000) allocated at closure #1 in Feed.load() (Feed.swift:21)
  ///
  /// Component 2: 2 objects, 1 cycle
  ///   1) Cache.entries["a"] → Entry.owner → Cache
  ///      fingerprint c69426e4d2ea887e
  ///      - Cache (object 10, 0xa000) allocated at Screen.cache() (Screen.swift:30)
  ///      - Entry (object 11, 0xb000) allocated at Screen.cache() (Screen.swift:30)
  /// ```
  ///
  /// - Parameters:
  ///   - settingNames: how to name the settings that show more when a component is cut short.
  ///   - names: how to write Swift names; by default readable, with the home module of the
  ///     report's own types (``NameStyle/readable(forTypeNames:)``), named in the header.
  public func renderText(settingNames: ReportSettingNames = .configuration, names: NameStyle? = nil) -> String {
    reportText(settingNames: settingNames, names: names).description
  }

  /// The text report as lines with their roles (see ``renderText(settingNames:names:)``).
  package func reportText(settingNames: ReportSettingNames = .configuration, names: NameStyle? = nil) -> ReportText {
    let names = names ?? defaultNameStyle
    var text = headerText(names: names)
    appendComponents(listedComponents.map { ($0, nil, 0) }, settingNames: settingNames, names: names, to: &text)
    appendLongCyclesNote(settingNames: settingNames, to: &text)
    return text
  }

  /// The components a text report lists: those with a cycle, or whose search was cut short.
  package var listedComponents: [Int] {
    components.indices.filter { components[$0].foundCycleCount > 0 || !components[$0].isComplete }
  }

  /// The first lines of the report: the verdict, the snapshot's size and the search's bound, and
  /// how names are written when there are cycles.
  package func headerText(names: NameStyle) -> ReportText {
    var text = ReportText()
    let found = foundCycleCount
    if found == 0 {
      text.append("No retain cycles among \(count(objectCount, "object"))", as: .success)
    } else {
      text.append("\(count(found, "retain cycle")) in \(count(listedComponents.count, "strongly connected component"))", as: .failure)
    }
    text.append(
      "\(count(objectCount, "object")), \(count(referenceCount, "reference")) "
        + "(\(grouped(strongReferenceCount)) strong); cycles of up to \(configuration.maxCycleLength) objects")
    if let note = names.homeModuleNote, found > 0 { text.append(note, as: .detail) }
    return text
  }

  /// The components at `listed` (indices into ``components``), in that order, each after a
  /// blank line, with its remark in its heading (`still reachable`); components of a section
  /// with the same cycles and remark are shown once, at the first one's place. With `ownCode`,
  /// an object allocated in other code below the package's own frame says that frame too
  /// (`allocated at ChannelPipeline.init() (ChannelPipeline.swift:1064) from Server.accept() (Server.swift:20)`).
  package func appendComponents(
    _ listed: [(component: Int, remark: String?, section: Int)], settingNames: ReportSettingNames, names: NameStyle,
    ownCode: OwnCode? = nil, to text: inout ReportText
  ) {
    for group in groupedComponents(listed) {
      text.append("")
      appendComponent(group, settingNames: settingNames, names: names, ownCode: ownCode, to: &text)
    }
  }

  /// A component's heading, its cycles with their objects, and what is not listed.
  private func appendComponent(
    _ group: (first: Int, remark: String?, others: [Int]), settingNames: ReportSettingNames, names: NameStyle, ownCode: OwnCode?,
    to text: inout ReportText
  ) {
    let component = components[group.first]
    var heading = "Component \(group.first + 1): \(count(component.objectCount, "object")), "
    heading += component.isComplete ? count(component.foundCycleCount, "cycle") : "at least \(count(component.foundCycleCount, "cycle"))"
    if let remark = group.remark { heading += " (\(remark))" }
    if group.others.count > 0 {
      heading += "; and \(count(group.others.count, "more component")) with the same cycles"
    }
    text.append(heading, as: .heading)
    for (index, cycle) in component.cycles.enumerated() {
      text.append([.itemNumber(index + 1), " \(names.cycle(cycle))"], indent: 2)
      if let short = names.shortForm(of: cycle) { text.append("in short: \(short)", as: .detail, indent: 5) }
      text.append("fingerprint \(cycle.fingerprint)", as: .detail, indent: 5)
      for element in cycle.elements {
        var object = "- \(names.type(element.typeName)) (object \(element.objectID)"
        if let address = element.address { object += ", 0x\(String(address, radix: 16))" }
        object += ")"
        guard let site = element.allocationSite.allocationSite else {
          text.append(object, indent: 5)
          continue
        }
        var line: [ReportText.Span] = ["\(object) allocated at "] + .frame(site, names: names)
        if let ownCode, !ownCode.contains(site), let own = ownCode.firstOwnFrame(in: element.allocationSite) {
          line += [" from "] + .frame(element.allocationSite[own], names: names)
        }
        text.append(line, indent: 5)
      }
    }
    if component.unlistedCycleCount > 0 {
      text.append(
        "… \(grouped(component.unlistedCycleCount)) more not listed (the \(count(component.cycles.count, "shortest cycle")) are shown; "
          + "raise \(settingNames.maxCyclesPerComponent) to see more)", indent: 2)
    }
    if !component.isComplete {
      text.append("The search stopped at its step budget: this component is too dense to enumerate completely.", indent: 2)
    }
    if !group.others.isEmpty {
      let shown = group.others.prefix(5).map { "\($0 + 1) (object \(components[$0].smallestObjectID))" }
      text.append(
        "Same cycles in component\(group.others.count == 1 ? "" : "s") \(shown.joined(separator: ", "))"
          + (group.others.count > 5 ? ", …" : ""), indent: 2)
    }
  }

  /// The note on components whose cycles are all longer than the search went.
  package func appendLongCyclesNote(settingNames: ReportSettingNames, to text: inout ReportText) {
    let longOnly = components.filter { $0.foundCycleCount == 0 && $0.isComplete }
    guard !longOnly.isEmpty else { return }
    let objects = longOnly.reduce(0) { $0 + $1.objectCount }
    text.append("")
    text.append(
      "Note: \(count(longOnly.count, "strongly connected component")) (\(count(objects, "object"))"
        + ", first object \(longOnly[0].smallestObjectID)) only has cycles longer than \(configuration.maxCycleLength) objects; "
        + "raise \(settingNames.maxCycleLength) to list them.", as: .note)
  }

  /// Readable names, with the home module of the listed cycles' types.
  var defaultNameStyle: NameStyle { .readable(forTypeNames: cycles.lazy.flatMap(\.elements).map(\.typeName)) }

  /// The components of `listed` with the same cycle fingerprints, remark and section, each group
  /// at its first one's place.
  private func groupedComponents(_ listed: [(component: Int, remark: String?, section: Int)]) -> [(
    first: Int, remark: String?, others: [Int]
  )] {
    struct Signature: Hashable {
      var objectCount: Int
      var foundCycleCount: Int
      var isComplete: Bool
      var fingerprints: [Fingerprint]
      var remark: String?
      var section: Int
    }
    var groups: [(first: Int, remark: String?, others: [Int])] = []
    var groupBySignature: [Signature: Int] = [:]
    for (index, remark, section) in listed {
      let component = components[index]
      let signature = Signature(
        objectCount: component.objectCount, foundCycleCount: component.foundCycleCount,
        isComplete: component.isComplete, fingerprints: component.cycles.map(\.fingerprint), remark: remark, section: section)
      if let group = groupBySignature[signature] {
        groups[group].others.append(index)
      } else {
        groupBySignature[signature] = groups.count
        groups.append((index, remark, []))
      }
    }
    return groups
  }
}
