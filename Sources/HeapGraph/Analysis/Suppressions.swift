/// Leaks not to report: the one format for `leak-detector run`'s defaults, a user's file
/// (`--suppressions FILE`) and the known leaks of the test integrations. One rule per line, a
/// kind and a pattern (a ``TypePattern``: `*` any run of characters, `?` one character), and after
/// `#` why:
///
/// ```text
/// # Types: every object of the leak's entry (the entry, or each object of its entry cycle) matches;
/// # a closure is named by its function (`closure #1 in Vendor.Pool.drain()`).
/// type Vendor.Pool*                # pooled on purpose, freed at exit by the OS
/// # The allocation site of an entry object (its function or source file).
/// site *ThirdParty/Parser.swift    # upstream issue 123
/// # Any frame of an entry object's allocation stack.
/// stack MyApp.LegacyLoader.*
/// # One finding, as a gate baseline names it.
/// fingerprint 387510702306f2fb
/// ```
public struct Suppressions: Sendable, Hashable {
  public enum Kind: String, Sendable, Hashable, CaseIterable {
    case type, site, stack, fingerprint
  }

  public struct Rule: Sendable, Hashable {
    public var kind: Kind
    public var pattern: String
    /// Why (the text after `#`), if said.
    public var reason: String?
    /// Where the rule comes from: `default`, or `file:line`.
    public var origin: String

    public init(kind: Kind, pattern: String, reason: String? = nil, origin: String) {
      self.kind = kind
      self.pattern = pattern
      self.reason = reason
      self.origin = origin
    }
  }

  public var rules: [Rule]

  public init(rules: [Rule] = []) {
    self.rules = rules
  }

  /// A problem in a suppression file, with its line.
  public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
    public var line: Int
    public var problem: String
    public var description: String { "line \(line): \(problem)" }
  }

  /// Reads the rules of a suppression file's text; `name` is how rules say where they come from.
  public init(parsing text: String, name: String) throws(ParseError) {
    var rules: [Rule] = []
    for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      var line = Substring(rawLine)
      var reason: String?
      if let hash = line.firstIndex(of: "#") {
        let said = line[line.index(after: hash)...].trimmingSpaces
        reason = said.isEmpty ? nil : String(said)
        line = line[..<hash]
      }
      let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
      guard !words.isEmpty else { continue }
      guard words.count == 2 else {
        throw ParseError(line: index + 1, problem: "expected a kind and one pattern (like `type MyApp.Cache`), found \(words.count) words")
      }
      guard let kind = Kind(rawValue: String(words[0])) else {
        throw ParseError(
          line: index + 1,
          problem: "unknown kind '\(words[0])'; use one of \(Kind.allCases.map(\.rawValue).joined(separator: ", "))")
      }
      rules.append(Rule(kind: kind, pattern: String(words[1]), reason: reason, origin: "\(name):\(index + 1)"))
    }
    self.rules = rules
  }

  /// Runtime and test-framework objects that outlive a program by design: a `type` rule for each
  /// of ``TypePattern/frameworkTypes``.
  public static let standard = Suppressions(
    rules: TypePattern.frameworkTypes.map {
      Rule(kind: .type, pattern: $0.pattern, reason: "runtime or test-framework object", origin: "default")
    })

  /// Both sets of rules.
  public static func + (lhs: Suppressions, rhs: Suppressions) -> Suppressions {
    Suppressions(rules: lhs.rules + rhs.rules)
  }

  /// The first rule that suppresses a leak whose entry objects have `types` and allocation
  /// stacks `stacks` (innermost frame first), with fingerprint `fingerprint`.
  public func rule(suppressingTypes types: [String], stacks: [[StackFrame]], fingerprint: Fingerprint) -> Rule? {
    rules.first { rule in
      switch rule.kind {
      case .type: !types.isEmpty && types.allSatisfy { TypePattern(rule.pattern).matches($0) }
      case .fingerprint: rule.pattern == fingerprint.description
      case .site: stacks.contains { $0.allocationSite.map { Self.frame($0, matches: rule.pattern) } ?? false }
      case .stack: stacks.contains { $0.contains { Self.frame($0, matches: rule.pattern) } }
      }
    }
  }

  /// Whether `type` matches a `type` rule (the test integrations' known leaks).
  public func suppresses(type: String) -> Bool {
    rules.contains { $0.kind == .type && TypePattern($0.pattern).matches(type) }
  }

  private static func frame(_ frame: StackFrame, matches pattern: String) -> Bool {
    let pattern = TypePattern(pattern)
    return frame.symbol.map(pattern.matches) ?? false || frame.file.map(pattern.matches) ?? false
  }
}

extension Substring {
  fileprivate var trimmingSpaces: Substring {
    var text = self
    while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
    while let last = text.last, last == " " || last == "\t" || last == "\r" { text = text.dropLast() }
    return text
  }
}
