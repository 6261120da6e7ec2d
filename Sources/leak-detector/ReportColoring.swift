/// ANSI colour for a text report on a terminal: headings bold, what failed red, what passed
/// green, source locations blue, fingerprints and notes dim. The text itself is unchanged, so a
/// coloured report reads the same with colour stripped.
///
/// Nine escape sequences do not earn a dependency: the ecosystem's colour libraries (Rainbow,
/// console-kit) do the same with more API than a report needs.
enum ReportColoring {
  private static let reset = "\u{1B}[0m"
  private static let bold = "\u{1B}[1m"
  private static let dim = "\u{1B}[2m"
  private static let red = "\u{1B}[31m"
  private static let green = "\u{1B}[32m"
  private static let yellow = "\u{1B}[33m"
  private static let blue = "\u{1B}[34m"

  /// `report` with colour, line by line.
  static func colored(_ report: String) -> String {
    var lines = report.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    for index in lines.indices { lines[index] = colored(line: lines[index]) }
    return lines.joined(separator: "\n")
  }

  private static func colored(line: String) -> String {
    let trimmed = line.drop { $0 == " " }
    let indent = String(line.prefix(line.count - trimmed.count))
    func whole(_ style: String) -> String { indent + style + trimmed + reset }
    if trimmed.isEmpty { return line }
    if trimmed.hasPrefix("No new leaks") || trimmed.hasPrefix("No retain cycles") || trimmed.hasPrefix("Leaks: none")
      || trimmed.hasPrefix("No growth") || trimmed.contains("no longer found (fixed)")
    {
      return whole(bold + green)
    }
    if trimmed.first?.isNumber == true, trimmed.contains(" new finding") || trimmed.contains("retain cycle") {
      return whole(bold + red)
    }
    for heading in ["Component ", "Leaks:", "Survivors:", "Suppressed:", "Checked ", "Growth from", "New or growing", "Retaining paths"]
    where trimmed.hasPrefix(heading) {
      return whole(bold)
    }
    if trimmed.hasPrefix("fingerprint ") || trimmed.hasPrefix("Names from ") || trimmed.hasPrefix("in short:") { return whole(dim) }
    if trimmed.hasPrefix("note:") { return whole(yellow) }
    var text = String(trimmed)
    // "1) " numbers bold; "suspect ~~~ X" red; "(File.swift:12)" blue.
    if let close = text.firstIndex(of: ")"), close > text.startIndex, text[..<close].allSatisfy(\.isNumber) {
      text = bold + String(text[...close]) + reset + String(text[text.index(after: close)...])
    }
    if let suspect = text.firstRange(of: "suspect ~~~ "), let end = text[suspect.upperBound...].firstIndex(of: ";") {
      let before = String(text[..<suspect.upperBound])
      text = before + red + String(text[suspect.upperBound..<end]) + reset + String(text[end...])
    }
    if let open = text.ranges(of: " (").last, text.hasSuffix(")"), text[open.upperBound...].contains(".swift:") {
      let location = String(text[open.upperBound..<text.index(before: text.endIndex)])
      text = String(text[..<open.upperBound]) + blue + location + reset + ")"
    }
    return indent + text
  }
}
