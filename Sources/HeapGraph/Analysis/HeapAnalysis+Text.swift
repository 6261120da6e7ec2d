extension HeapAnalysis {
  /// The report for people: the retain cycles by component (see
  /// ``CycleReport/renderText(settingNames:names:)``), then the leaked objects and survivors (see
  /// ``LeakAnalysis/renderText(names:)``).
  ///
  /// - Parameters:
  ///   - settingNames: how to name the settings that show more when a component is cut short.
  ///   - names: how to write Swift names; by default readable, with the home module of all the
  ///     report's types.
  public func renderText(settingNames: ReportSettingNames = .configuration, names: NameStyle? = nil) -> String {
    let names = names ?? nameStyle
    return cycles.renderText(settingNames: settingNames, names: names) + leaks.renderText(names: names)
  }

  /// Readable names, with the home module of the types of every finding.
  public var nameStyle: NameStyle {
    .readable(forTypeNames: cycles.cycles.flatMap { $0.elements.map(\.typeName) } + leaks.typeNames)
  }
}
