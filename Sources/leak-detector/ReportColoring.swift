import HeapGraph

/// ANSI colour for a text report on a terminal, by the role of each line and span: headings
/// bold, verdicts that something failed red and that nothing did green, notes yellow, details
/// (fingerprints, short forms) dim, item numbers bold, suspects red, source locations blue. The
/// text itself is unchanged, so a coloured report reads the same with colour stripped.
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

  /// `report` with colour, line by line; indents stay outside the colour.
  static func colored(_ report: ReportText) -> String {
    var out = ""
    for line in report.lines {
      out += String(repeating: " ", count: line.indent)
      if let role = line.role {
        out += styled(line.text, role)
      } else {
        for span in line.spans { out += span.role.map { styled(span.text, $0) } ?? span.text }
      }
      out += "\n"
    }
    return out
  }

  private static func styled(_ text: String, _ role: ReportText.Role) -> String {
    text.isEmpty ? text : style(role) + text + reset
  }

  /// The escape sequence that starts the colour of `role`.
  private static func style(_ role: ReportText.Role) -> String {
    switch role {
    case .heading, .itemNumber: bold
    case .success: bold + green
    case .failure: bold + red
    case .note: yellow
    case .detail: dim
    case .suspect: red
    case .location: blue
    }
  }
}
