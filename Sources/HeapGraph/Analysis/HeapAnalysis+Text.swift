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
    reportText(settingNames: settingNames, names: names).description
  }

  /// The text report as lines with their roles (see ``renderText(settingNames:names:)``).
  package func reportText(settingNames: ReportSettingNames = .configuration, names: NameStyle? = nil) -> ReportText {
    let names = names ?? nameStyle
    var text = cycles.reportText(settingNames: settingNames, names: names)
    text.append(contentsOf: leaks.reportText(names: names))
    return text
  }

  /// Readable names, with the home module of the types of every finding.
  public var nameStyle: NameStyle {
    .readable(forTypeNames: cycles.cycles.flatMap { $0.elements.map(\.typeName) } + leaks.typeNames)
  }
}
