/// A text report as lines that say what they are to the reader, so that a terminal styles a
/// report by what its lines mean, never by what they say.
///
/// A line is indented, made of spans, and may have one role for the whole line (a heading, a
/// verdict, a note, a detail). Inside a line without a role of its own, a span may have one: an
/// item number, a suspect, a source location. ``description`` is the plain text, each line ended
/// by a newline: what the `renderText` methods return.
///
/// ```swift
/// var text = ReportText()
/// text.append("Leaks: 2 objects in 1 group", as: .heading)
/// text.append([.itemNumber(1), " 1 × Cache.entries[\"a\"] → Entry.owner → Cache"], indent: 2)
/// text.append("fingerprint 387510702306f2fb", as: .detail, indent: 5)
/// ```
package struct ReportText: Sendable, Hashable, CustomStringConvertible {
  /// What a line, or a span of one, is to the reader.
  package enum Role: Sendable, Hashable {
    /// The first line of a section: `Leaks: 5 objects in 2 groups`.
    case heading
    /// A verdict that nothing is wrong: `No retain cycles among 8 objects`.
    case success
    /// A verdict that something is: `3 retain cycles in 1 strongly connected component`.
    case failure
    /// What the reader should know about how the report was made: `note: …`.
    case note
    /// What only some readers need: fingerprints, short forms, how names are written.
    case detail
    /// The number of an item in a list: `1)`.
    case itemNumber
    /// The reference most likely to blame for a survivor.
    case suspect
    /// A source location: `Feed.swift:12`.
    case location
  }

  /// Part of a line, with its role when it has one.
  package struct Span: Sendable, Hashable, ExpressibleByStringInterpolation {
    package var text: String
    package var role: Role?

    package init(_ text: String, role: Role? = nil) {
      self.text = text
      self.role = role
    }

    package init(stringLiteral text: String) { self.init(text) }

    package init(stringInterpolation: DefaultStringInterpolation) { self.init(String(stringInterpolation: stringInterpolation)) }

    /// `1)`: the number of an item in a list.
    package static func itemNumber(_ number: Int) -> Span { Span("\(number))", role: .itemNumber) }

    /// The reference most likely to blame.
    package static func suspect(_ text: String) -> Span { Span(text, role: .suspect) }

    /// `Feed.swift:12`: a source location.
    package static func location(_ text: String) -> Span { Span(text, role: .location) }
  }

  /// One line: its indent, its spans, and the role of the whole line, if it has one.
  package struct Line: Sendable, Hashable {
    /// The spaces before the text, which a style does not cover.
    package var indent: Int
    /// The role of the whole line; the roles of its spans count only without one.
    package var role: Role?
    package var spans: [Span]

    /// The line's text, without its indent.
    package var text: String { spans.map(\.text).joined() }
  }

  package private(set) var lines: [Line] = []

  package init() {}

  /// Appends a line that is one thing to the reader, or plain (`role` nil); `""` is a blank line.
  package mutating func append(_ text: String, as role: Role? = nil, indent: Int = 0) {
    lines.append(Line(indent: indent, role: text.isEmpty ? nil : role, spans: text.isEmpty ? [] : [Span(text)]))
  }

  /// Appends a line whose spans say what they are.
  package mutating func append(_ spans: [Span], indent: Int = 0) {
    lines.append(Line(indent: indent, role: nil, spans: spans))
  }

  /// The lines of `text` after those of this one.
  package mutating func append(contentsOf text: ReportText) { lines += text.lines }

  /// The plain report: each line indented and ended by a newline.
  package var description: String {
    var out = ""
    for line in lines { out += String(repeating: " ", count: line.indent) + line.text + "\n" }
    return out
  }
}

extension [ReportText.Span] {
  /// `Feed.load() (Feed.swift:12)`: a stack frame as `names` writes it, its source location
  /// marked.
  package static func frame(_ frame: StackFrame, names: NameStyle) -> Self {
    if let holder = frame.inlinedIn {
      var own = frame
      own.inlinedIn = nil
      return Self.frame(own, names: names) + [", inlined in "] + Self.frame(holder, names: names)
    }
    let text = names.frame(frame)
    guard let location = frame.sourceLocation, text.hasSuffix(" (\(location))") else { return [ReportText.Span(text)] }
    return [ReportText.Span(String(text.dropLast(location.count + 1))), .location(location), ")"]
  }
}
