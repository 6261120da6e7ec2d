extension HeapAnalysis {
  /// The report for people: the retain cycles by component (see ``CycleReport/renderText(settingNames:)``),
  /// then the leaked objects and survivors (see ``LeakAnalysis/renderText()``).
  ///
  /// - Parameter settingNames: how to name the settings that show more when a component is cut
  ///   short.
  public func renderText(settingNames: ReportSettingNames = .configuration) -> String {
    cycles.renderText(settingNames: settingNames) + leaks.renderText()
  }
}
