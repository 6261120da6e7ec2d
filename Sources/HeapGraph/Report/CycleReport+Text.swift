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
    let names = names ?? defaultNameStyle
    var out = ""
    let found = foundCycleCount
    let searchable = components.indices.filter { components[$0].foundCycleCount > 0 || !components[$0].isComplete }
    if found == 0 {
      out += "No retain cycles among \(count(objectCount, "object"))\n"
    } else {
      out += "\(count(found, "retain cycle")) in \(count(searchable.count, "strongly connected component"))\n"
    }
    out += "\(count(objectCount, "object")), \(count(referenceCount, "reference")) "
    out += "(\(grouped(strongReferenceCount)) strong); cycles of up to \(configuration.maxCycleLength) objects\n"
    if let note = names.homeModuleNote, found > 0 { out += note + "\n" }

    for group in groupedComponents(searchable) {
      let component = components[group.first]
      out += "\nComponent \(group.first + 1): \(count(component.objectCount, "object")), "
      out += component.isComplete ? count(component.foundCycleCount, "cycle") : "at least \(count(component.foundCycleCount, "cycle"))"
      if group.others.count > 0 {
        out += "; and \(count(group.others.count, "more component")) with the same cycles"
      }
      out += "\n"
      for (index, cycle) in component.cycles.enumerated() {
        out += "  \(index + 1)) \(names.cycle(cycle))\n"
        if let short = names.shortForm(of: cycle) { out += "     in short: \(short)\n" }
        out += "     fingerprint \(cycle.fingerprint)\n"
        for element in cycle.elements {
          out += "     - \(names.type(element.typeName)) (object \(element.objectID)"
          if let address = element.address { out += ", 0x\(String(address, radix: 16))" }
          out += ")"
          if let site = element.allocationSite.allocationSite {
            out += " allocated at \(names.frame(site))"
          }
          out += "\n"
        }
      }
      if component.unlistedCycleCount > 0 {
        out += "  … \(grouped(component.unlistedCycleCount)) more not listed (the \(count(component.cycles.count, "shortest cycle")) are shown; "
        out += "raise \(settingNames.maxCyclesPerComponent) to see more)\n"
      }
      if !component.isComplete {
        out += "  The search stopped at its step budget: this component is too dense to enumerate completely.\n"
      }
      if !group.others.isEmpty {
        let shown = group.others.prefix(5).map { "\($0 + 1) (object \(components[$0].smallestObjectID))" }
        out += "  Same cycles in component\(group.others.count == 1 ? "" : "s") \(shown.joined(separator: ", "))"
        out += group.others.count > 5 ? ", …\n" : "\n"
      }
    }

    let longOnly = components.filter { $0.foundCycleCount == 0 && $0.isComplete }
    if !longOnly.isEmpty {
      let objects = longOnly.reduce(0) { $0 + $1.objectCount }
      out += "\nNote: \(count(longOnly.count, "strongly connected component")) (\(count(objects, "object"))"
      out += ", first object \(longOnly[0].smallestObjectID)) only has cycles longer than \(configuration.maxCycleLength) objects; "
      out += "raise \(settingNames.maxCycleLength) to list them.\n"
    }
    return out
  }

  /// Readable names, with the home module of the listed cycles' types.
  var defaultNameStyle: NameStyle { .readable(forTypeNames: cycles.lazy.flatMap(\.elements).map(\.typeName)) }

  /// Indices of components with the same cycle fingerprints, in order of first appearance.
  private func groupedComponents(_ indices: [Int]) -> [(first: Int, others: [Int])] {
    struct Signature: Hashable {
      var objectCount: Int
      var foundCycleCount: Int
      var isComplete: Bool
      var fingerprints: [Fingerprint]
    }
    var groups: [(first: Int, others: [Int])] = []
    var groupBySignature: [Signature: Int] = [:]
    for index in indices {
      let component = components[index]
      let signature = Signature(
        objectCount: component.objectCount, foundCycleCount: component.foundCycleCount,
        isComplete: component.isComplete, fingerprints: component.cycles.map(\.fingerprint))
      if let group = groupBySignature[signature] {
        groups[group].others.append(index)
      } else {
        groupBySignature[signature] = groups.count
        groups.append((index, []))
      }
    }
    return groups
  }
}
