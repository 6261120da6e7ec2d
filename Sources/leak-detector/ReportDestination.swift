import ArgumentParser

/// A report written beside the main one, in a format of its own: `--report sarif:leaks.sarif`.
/// `run` and `gate` take it as often as needed, so that one run writes every report a CI job
/// publishes (SARIF for code scanning, JUnit for the test summary, HTML to download).
struct ReportDestination: ExpressibleByArgument {
  var format: BaselineGate.Format
  var path: String

  init?(argument: String) {
    guard let colon = argument.firstIndex(of: ":"), let format = BaselineGate.Format(rawValue: String(argument[..<colon])) else {
      return nil
    }
    let path = String(argument[argument.index(after: colon)...])
    guard !path.isEmpty else { return nil }
    self.format = format
    self.path = path
  }

  static var defaultValueDescription: String { "format:file" }
}
