/// A name as the Swift demangler writes it, read once into its parts: the words before the
/// declaration (thunks, partial applications, specializations, async parts), and the
/// declaration's contexts, from the innermost (a closure) to the outermost (the function or type
/// that holds it).
///
/// Every reader of demangled text in the package goes through this type: readable names
/// (``ReadableName``), closure names for captures, the function a test's stack frame names, and
/// whether a name is a closure's.
///
/// ```swift
/// let name = DemangledName("partial apply forwarder for closure #1 () -> () in MyApp.Feed.load(to: MyApp.View) -> ()")
/// name.prefixes.map(\.text)  // ["partial apply forwarder for "]
/// name.contexts              // ["closure #1 () -> ()", "MyApp.Feed.load(to: MyApp.View) -> ()"]
/// name.isClosure             // true
/// name.closureName           // "closure #1 in MyApp.Feed.load(to: View)"
/// name.function             // "MyApp.Feed.load(to: MyApp.View)"
/// ```
///
/// Contexts are separated by ` in ` outside brackets: `(`, `<`, `[` and `{` open one, and their
/// counterparts close it, except the `>` of an arrow `->` and the `<` and `>` of an operator's
/// name (`Swift.< infix`). A private declaration's discriminator, `(_select in _6F9E…)`, is in
/// parentheses, so its ` in ` separates nothing.
package struct DemangledName: Sendable, Hashable {
  /// The demangler's text, as given.
  package let text: String
  /// What the demangler writes before the declaration, in order.
  package let prefixes: [Prefix]
  /// The declaration: the text after the prefixes, without an unmangled suffix
  /// (` with unmangled suffix ".resume.0"`).
  package let declaration: Substring
  /// The declaration's contexts, innermost first: `closure #1 () -> ()`, `Local #1`,
  /// `App.make() -> AnyObject`. A conformance (`== in conformance App.Feed : Swift.Equatable in App`)
  /// has one context starting with `conformance `.
  package let contexts: [Substring]

  /// One of the words the demangler writes before a declaration.
  package struct Prefix: Sendable, Hashable {
    /// What the words say about the code.
    package enum Kind: Sendable, Hashable {
      /// `partial apply forwarder for `, `partial apply for `: the code that calls a closure with
      /// its context.
      case partialApplication
      /// `merged `, `specialized `, `dispatch thunk of `, `generic specialization <…> of `,
      /// `function signature specialization <…> of `: another copy of the same code.
      case copy
      /// `(1) suspend resume partial function for `, `(2) await resume partial function for `:
      /// a part of an async function.
      case asyncPartialFunction
      /// `async function pointer to `, `protocol witness for `,
      /// `variable initialization expression of `: something other than the declaration's code,
      /// which a name keeps saying.
      case relation
    }

    /// What the words say.
    package var kind: Kind
    /// The words as written, with their trailing space.
    package var text: Substring
  }

  /// Reads `text`.
  package init(_ text: String) {
    self.text = text
    var rest = Substring(text)
    // Every prefix, separator and suffix has a space: a name without one is its own declaration.
    guard text.utf8.contains(UInt8(ascii: " ")) else {
      prefixes = []
      declaration = rest
      contexts = [rest]
      return
    }
    if let suffix = rest.utf8.firstRange(ofBytes: " with unmangled suffix ") { rest = rest[..<suffix.lowerBound] }
    var prefixes: [Prefix] = []
    while let prefix = Self.prefix(of: rest) {
      prefixes.append(prefix)
      rest = rest.dropFirst(prefix.text.count)
    }
    self.prefixes = prefixes
    declaration = rest
    contexts = Self.topLevelParts(of: rest, separatedBy: " in ")
  }

  // MARK: - What the name is

  /// Whether the declaration is a closure's (`closure #1 …` or `implicit closure #2 …`): the one
  /// decision, by name, that code is a closure.
  package var isClosure: Bool { Self.isClosure(declaration: declaration) }

  /// Whether the declaration is a reabstraction thunk, code that adapts a closure to another
  /// calling convention (its context holds the closure it wraps).
  package var isReabstractionThunk: Bool { Self.isReabstractionThunk(declaration: declaration) }

  /// ``isClosure`` of the name `text`, read no further than the start of its declaration: for
  /// deciding about many names quickly (an object's kind by its type name).
  static func namesClosure(_ text: String) -> Bool {
    guard mayHavePrefix(text) else { return text.hasPrefix("closure #") || text.hasPrefix("implicit closure #") }
    return isClosure(declaration: declaration(of: text))
  }

  /// ``isReabstractionThunk`` of the name `text`, read no further than the start of its
  /// declaration.
  static func namesReabstractionThunk(_ text: String) -> Bool {
    guard mayHavePrefix(text) else { return text.hasPrefix("reabstraction thunk") }
    return isReabstractionThunk(declaration: declaration(of: text))
  }

  /// Whether `text` names code the compiler made to pass a call on (a reabstraction thunk, a
  /// `thunk for`, a partial application, an `@objc` thunk, a merged function or an outlined
  /// copy): a frame of such code is never the one a person wrote.
  package static func namesForwardingCode(_ text: String) -> Bool {
    // Asked of every frame of every stack: most names start with none of the words' first letters.
    guard let first = text.utf8.first, forwardingFirstBytes.contains(first) else { return false }
    return forwardingWords.contains { startsWith(text[...], $0) }
  }

  private static let forwardingWords = ["reabstraction thunk", "partial apply", "thunk for", "@objc ", "merged ", "outlined "]
  private static let forwardingFirstBytes = forwardingWords.compactMap(\.utf8.first)

  private static func isClosure(declaration: Substring) -> Bool { closureWordsLength(of: declaration) != nil }

  private static func isReabstractionThunk(declaration: Substring) -> Bool { startsWith(declaration, "reabstraction thunk") }

  /// The start of `text`'s declaration: what follows its prefixes.
  private static func declaration(of text: String) -> Substring {
    var rest = Substring(text)
    while let prefix = prefix(of: rest) { rest = rest.dropFirst(prefix.text.count) }
    return rest
  }

  /// Whether the name is a part of an async function (after a suspension, the concurrency
  /// runtime resumes it).
  package var isAsyncPartialFunction: Bool { prefixes.contains { $0.kind == .asyncPartialFunction } }

  /// `closure #2` for a context `closure #2 (A) -> () …` and `implicit closure #2` for
  /// `implicit closure #2 …`; `nil` for other contexts.
  package static func closureNumber(of context: Substring) -> Substring? {
    guard let wordsLength = closureWordsLength(of: context) else { return nil }
    let digits = context.dropFirst(wordsLength).prefix { $0.isNumber }
    return context.prefix(wordsLength + digits.count)
  }

  /// The length of `closure #` or `implicit closure #` at the start of `context`, if either is.
  private static func closureWordsLength(of context: Substring) -> Int? {
    if startsWith(context, "closure #") { return 9 }
    if startsWith(context, "implicit closure #") { return 18 }
    return nil
  }

  // MARK: - Names made from it

  /// A closure's name as people read it: `closure #1 in MyApp.Feed.load()`, without the
  /// closure's own signature, the enclosing function's result type, partial-application prefixes,
  /// and qualifiers inside the enclosing function's parameter list; `reabstraction thunk` for a
  /// thunk.
  ///
  /// `"partial apply forwarder for closure #1 () -> () in MyApp.Feed.load(to: MyApp.View, Swift.Int) -> ()"`
  /// becomes `"closure #1 in MyApp.Feed.load(to: View, Int)"`.
  package var closureName: String {
    if isReabstractionThunk { return "reabstraction thunk" }
    var result = prefixes.filter { $0.kind != .partialApplication }.map(\.text).joined()
    // "closure #1 (A) -> B in context" → "closure #1 in context", at every nesting level.
    guard var lastClosure = contexts.lastIndex(where: { Self.closureNumber(of: $0) != nil }) else {
      return result + Self.unqualifyingParameters(Self.throughParameters(declaration))
    }
    // A local function a closure is written in (`test #1 <A>(A) -> ()`) is named as a closure
    // is, so that the function it is local to is named too.
    while lastClosure + 1 < contexts.count - 1, Self.localFunctionNumber(of: contexts[lastClosure + 1]) != nil {
      lastClosure += 1
    }
    for context in contexts[...lastClosure] {
      let number = Self.closureNumber(of: context) ?? Self.localFunctionNumber(of: context)
      result += number.map { $0 + " in " } ?? context + " in "
    }
    let number = Self.closureNumber(of: contexts[lastClosure]) ?? Self.localFunctionNumber(of: contexts[lastClosure])!
    let enclosing =
      lastClosure == contexts.count - 1
      ? contexts[lastClosure].dropFirst(number.count) : declaration[contexts[lastClosure + 1].startIndex...]
    if lastClosure == contexts.count - 1 { result.removeLast(" in ".count) }
    return result + Self.unqualifyingParameters(Self.throughParameters(enclosing))
  }

  /// `test #1` of a local function's context (`test #1 <A where A: GRDB.DatabaseWriter>(A) -> ()`),
  /// or `nil` when the context is not one.
  static func localFunctionNumber(of context: Substring) -> Substring? {
    let name = context.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
    guard let first = name.first, !first.isNumber, context[name.endIndex...].hasPrefix(" #") else { return nil }
    let digits = context[context.index(name.endIndex, offsetBy: 2)...].prefix { $0.isNumber }
    return digits.isEmpty ? nil : context[..<digits.endIndex]
  }

  /// The function the code is of, as its declaration is written, without its result type and
  /// effects: the declaration, or a closure's outermost context
  /// (`implicit closure #1 () throws -> Any in Tests.testA() -> ()` → `Tests.testA()`).
  package var function: String {
    var name = isClosure ? contexts[contexts.count - 1] : declaration
    if let arrow = Self.resultArrow(in: name) { name = name[..<arrow] }
    while let suffix = [" throws", " async"].first(where: name.hasSuffix) { name = name.dropLast(suffix.count) }
    return String(name)
  }

  /// Where the result type of the declaration `name` starts (its ` -> ` outside any parentheses
  /// or angle brackets: a parameter of function type has one of its own), or `nil` when it has
  /// none.
  private static func resultArrow(in name: Substring) -> Substring.Index? {
    var depth = 0
    var index = name.startIndex
    while index < name.endIndex {
      switch name[index] {
      case "(", "<": depth += 1
      case ")",
        ">" where depth > 0 && !(name[index] == ">" && index > name.startIndex && name[name.index(before: index)] == "-"):
        depth -= 1
      case " " where depth == 0 && name[index...].hasPrefix(" -> "): return index
      default: break
      }
      index = name.index(after: index)
    }
    return nil
  }

  /// `"Feed.load(to: MyApp.View, Swift.Int)"` → `"Feed.load(to: View, Int)"`: the text with the
  /// qualifiers inside its first parameter list dropped.
  static func unqualifyingParameters(_ name: Substring) -> String {
    var start = name.startIndex
    while let open = name[start...].firstIndex(of: "(") {
      // From the first parenthesis on (a private declaration's discriminator included), but
      // for an extension's module.
      guard name[open...].hasPrefix("(extension in ") else {
        return String(name[...open]) + unqualified(name[name.index(after: open)...])
      }
      start = name.index(after: open)
    }
    return String(name)
  }

  /// Where the first parameter list of `text` opens: the first parenthesis that opens neither an
  /// extension's module (`(extension in AppTests):`) nor a private declaration's discriminator.
  private static func parametersStart(in text: Substring) -> Substring.Index? {
    var index = text.startIndex
    while let open = text[index...].firstIndex(of: "(") {
      if !isDiscriminator(text[open...]) && !text[open...].hasPrefix("(extension in ") { return open }
      index = text.index(after: open)
    }
    return nil
  }

  /// `Swift.Optional<MyApp.Feed>` → `Optional<Feed>`: `text` without the qualifiers of its names
  /// (an identifier followed by a dot).
  package static func unqualified(_ text: Substring) -> String {
    var result = ""
    var identifier = ""
    for character in text {
      if character.isLetter || character.isNumber || character == "_" {
        identifier.append(character)
      } else if character == "." && !identifier.isEmpty {
        identifier = ""
      } else {
        result += identifier
        identifier = ""
        result.append(character)
      }
    }
    return result + identifier
  }

  // MARK: - Reading

  /// The text through the end of its first parameter list, `Feed.load(to: App.View)` of
  /// `Feed.load(to: App.View) -> ()`; all of it when it has none. A private declaration's
  /// discriminator, `(_select in _E350…)` or `(in _E350…)`, and an extension's module,
  /// `(extension in AppTests):`, are not parameter lists.
  private static func throughParameters(_ text: Substring) -> Substring {
    let bytes = text.utf8
    guard var index = parametersStart(in: text) else { return text }
    var depth = 0
    while index < bytes.endIndex {
      if bytes[index] == UInt8(ascii: "(") { depth += 1 }
      if bytes[index] == UInt8(ascii: ")") {
        depth -= 1
        if depth == 0 { return text[...index] }
      }
      index = bytes.index(after: index)
    }
    return text
  }

  /// Whether `text` starts with a private declaration's discriminator: `(name in _` or `(in _`,
  /// then 32 hexadecimal digits and `)`.
  private static func isDiscriminator(_ text: Substring) -> Bool {
    let bytes = text.utf8
    guard let close = bytes.firstIndex(of: UInt8(ascii: ")")), let marker = bytes[..<close].firstRange(ofBytes: "in _") else {
      return false
    }
    let name = bytes[bytes.index(after: bytes.startIndex)..<marker.lowerBound]
    let hash = bytes[marker.upperBound..<close]
    return hash.count == 32 && hash.allSatisfy(hexDigits.contains) && !name.contains(UInt8(ascii: "("))
      && (name.isEmpty || name.last == UInt8(ascii: " "))
  }

  private static let hexDigits = Set("0123456789abcdefABCDEF".utf8)

  /// The prefix `text` starts with, if any.
  private static func prefix(of text: Substring) -> Prefix? {
    guard let first = text.utf8.first, isPrefixInitial(first) else { return nil }
    for (word, kind) in prefixWords where startsWith(text, word) { return Prefix(kind: kind, text: text.prefix(word.count)) }
    for specialization in ["generic specialization <", "function signature specialization <"] where startsWith(text, specialization) {
      let open = text.index(text.startIndex, offsetBy: specialization.count - 1)
      guard let close = closingBracket(in: text, from: open), startsWith(text[text.index(after: close)...], " of ") else {
        return nil
      }
      return Prefix(kind: .copy, text: text[..<text.index(close, offsetBy: 5)])
    }
    if text.first == "(", let close = text.firstIndex(of: ")") {
      for word in [" suspend resume partial function for ", " await resume partial function for "]
      where startsWith(text[text.index(after: close)...], word) {
        return Prefix(kind: .asyncPartialFunction, text: text[..<text.index(close, offsetBy: 1 + word.count)])
      }
    }
    return nil
  }

  /// Whether `byte` is the first of a prefix: most names are told to have none by their first.
  private static func isPrefixInitial(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "p"), UInt8(ascii: "m"), UInt8(ascii: "s"), UInt8(ascii: "d"), UInt8(ascii: "a"), UInt8(ascii: "v"),
      UInt8(ascii: "g"), UInt8(ascii: "f"), UInt8(ascii: "("):
      true
    default: false
    }
  }

  /// Whether `text` may start with a prefix (its first character starts one).
  private static func mayHavePrefix(_ text: String) -> Bool { text.utf8.first.map(isPrefixInitial) ?? false }

  /// The words of the prefixes that are only words, and what they say.
  private static let prefixWords: [(String, Prefix.Kind)] = [
    ("partial apply forwarder for ", .partialApplication), ("partial apply for ", .partialApplication),
    ("merged ", .copy), ("specialized ", .copy), ("dispatch thunk of ", .copy),
    ("async function pointer to ", .relation), ("protocol witness for ", .relation),
    ("variable initialization expression of ", .relation),
  ]

  /// The parts of `text` between occurrences of `separator` outside brackets. Read byte by byte:
  /// brackets, arrows, operators and separators are ASCII, so no character is split.
  static func topLevelParts(of text: Substring, separatedBy separator: String) -> [Substring] {
    let bytes = text.utf8
    let separatorBytes = Array(separator.utf8)
    var parts: [Substring] = []
    var depth = 0
    var start = bytes.startIndex
    var index = bytes.startIndex
    while index < bytes.endIndex {
      switch bracket(in: bytes, at: index) {
      case .opening: depth += 1
      case .closing: depth = max(depth - 1, 0)
      case nil: break
      }
      if depth == 0, bytes[index] == separatorBytes[0], bytes[index...].starts(with: separatorBytes) {
        parts.append(text[start..<index])
        index = bytes.index(index, offsetBy: separatorBytes.count)
        start = index
        continue
      }
      index = bytes.index(after: index)
    }
    parts.append(text[start...])
    return parts
  }

  /// The index of the bracket that closes the one at `open`.
  private static func closingBracket(in text: Substring, from open: Substring.Index) -> Substring.Index? {
    let bytes = text.utf8
    var depth = 0
    var index = open
    while index < bytes.endIndex {
      switch bracket(in: bytes, at: index) {
      case .opening: depth += 1
      case .closing:
        depth -= 1
        if depth == 0 { return index }
      case nil: break
      }
      index = bytes.index(after: index)
    }
    return nil
  }

  /// A character that opens or closes a bracket.
  enum Bracket { case opening, closing }

  /// Whether `character`, after `previous`, opens or closes a bracket: what the byte version of
  /// `bracket(_:after:)` says of its ASCII byte.
  static func bracket(_ character: Character, after previous: Character?) -> Bracket? {
    character.asciiValue.flatMap { bracket($0, after: previous?.asciiValue) }
  }

  /// Whether `byte`, after `previous`, opens or closes a bracket: `(`, `<`, `[` and `{` open one
  /// and their counterparts close it, except the `>` of an arrow `->`.
  static func bracket(_ byte: UInt8, after previous: UInt8?) -> Bracket? {
    switch byte {
    case UInt8(ascii: "("), UInt8(ascii: "<"), UInt8(ascii: "["), UInt8(ascii: "{"): .opening
    case UInt8(ascii: ">") where previous == UInt8(ascii: "-"): nil
    case UInt8(ascii: ")"), UInt8(ascii: ">"), UInt8(ascii: "]"), UInt8(ascii: "}"): .closing
    default: nil
    }
  }

  /// Whether the byte at `index` opens or closes a bracket: what `bracket(_:after:)` says of it,
  /// and not the `<` or `>` of an operator's name (`Swift.<= infix`, `App.<~> prefix`).
  private static func bracket(in bytes: Substring.UTF8View, at index: Substring.Index) -> Bracket? {
    let byte = bytes[index]
    let previous = index > bytes.startIndex ? bytes[bytes.index(before: index)] : nil
    guard let bracket = bracket(byte, after: previous) else { return nil }
    return (byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")) && isInOperatorName(bytes, at: index) ? nil : bracket
  }

  /// Whether the operator character at `index` belongs to an operator's name: a run of operator
  /// characters followed by ` infix`, ` prefix` or ` postfix`.
  private static func isInOperatorName(_ bytes: Substring.UTF8View, at index: Substring.Index) -> Bool {
    var end = index
    while end < bytes.endIndex, operatorBytes.contains(bytes[end]) { end = bytes.index(after: end) }
    let rest = bytes[end...]
    return rest.starts(with: " infix".utf8) || rest.starts(with: " prefix".utf8) || rest.starts(with: " postfix".utf8)
  }

  /// The characters an operator's name is made of (all ASCII).
  private static let operatorCharacters = "/=-+!*%<>&|^~?."
  private static let operatorBytes = Set(operatorCharacters.utf8)

  /// Whether `text` starts with the characters of `prefix`, compared as UTF-8 (the prefixes the
  /// demangler writes are ASCII, and a byte comparison costs far less than one of characters).
  private static func startsWith(_ text: Substring, _ prefix: String) -> Bool {
    let compared = text.utf8.withContiguousStorageIfAvailable { bytes in
      prefix.utf8.withContiguousStorageIfAvailable { wanted in
        bytes.count >= wanted.count && bytes.prefix(wanted.count).elementsEqual(wanted)
      }
    }
    return (compared ?? nil) ?? text.utf8.starts(with: prefix.utf8)
  }

  static func isOperatorCharacter(_ character: Character) -> Bool { operatorCharacters.contains(character) }
}
