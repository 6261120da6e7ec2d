/// How a text report names the settings a reader can change when a report is cut short: the
/// command line's flags for the CLI, the configuration's properties for library users.
///
/// ```text
///   … 399 more not listed (the 100 shortest cycles are shown; raise --max-cycles-per-component to see more)
/// ```
public struct ReportSettingNames: Sendable, Hashable {
  /// The setting for the longest cycle searched.
  public var maxCycleLength: String
  /// The setting for how many cycles are listed per component.
  public var maxCyclesPerComponent: String
  /// The setting that lists every cycle still reachable, those of dependencies' types too.
  public var allCycles: String

  public init(maxCycleLength: String, maxCyclesPerComponent: String, allCycles: String = "allCycles: true") {
    self.maxCycleLength = maxCycleLength
    self.maxCyclesPerComponent = maxCyclesPerComponent
    self.allCycles = allCycles
  }

  /// The names of ``CycleFinder/Configuration``'s properties, and the `allCycles` argument of
  /// ``HeapAnalysis/renderText(settingNames:names:allCycles:)``.
  public static let configuration = ReportSettingNames(
    maxCycleLength: "CycleFinder.Configuration.maxCycleLength",
    maxCyclesPerComponent: "CycleFinder.Configuration.maxCyclesPerComponent")
}
