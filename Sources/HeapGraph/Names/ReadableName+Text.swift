extension ReadableName {
  /// Demangled text being made readable: characters with bracket-aware searches. Operator names
  /// (`==`, `<~>`) are held as single placeholder characters so that their `<` and `>` are not
  /// taken for brackets.
  struct Text {
    private(set) var characters: [Character]
    /// The operators the placeholders stand for, by placeholder.
    private var operators: [Character: String]

    private init(characters: [Character], operators: [Character: String]) {
      self.characters = characters
      self.operators = operators
    }

    /// `text` without private discriminators (`(_select in _6F9E…)` → `_select`), extension
    /// contexts (`(extension in App):`) and lazy-storage prefixes, its operators replaced by
    /// placeholders.
    init(preparing text: String) {
      var characters = Array(text)
      characters = Self.removingDiscriminators(characters)
      characters = Self.removing(Array("$__lazy_storage_$_"), from: characters)
      while let start = Self.firstIndex(of: Array("(extension in "), in: characters),
        let colon = characters[start...].firstIndex(of: ":")
      {
        characters.removeSubrange(start...colon)
      }
      var operators: [Character: String] = [:]
      for fixity in [" infix", " prefix", " postfix"] {
        let word = Array(fixity)
        while let position = Self.firstIndex(of: word, in: characters), position > 0 {
          var start = position
          while start > 0, DemangledName.isOperatorCharacter(characters[start - 1]) { start -= 1 }
          // The dot that joins the operator to its type (`Swift.Equatable.==`, `Swift...<`).
          if start > 0, characters[start] == ".", !DemangledName.isOperatorCharacter(characters[start - 1]) { start += 1 }
          let placeholder = Character(Unicode.Scalar(0xE000 + UInt32(operators.count))!)
          operators[placeholder] = String(characters[start..<position])
          characters.replaceSubrange(start..<(position + word.count), with: [placeholder])
        }
      }
      self.init(characters: characters, operators: operators)
    }

    /// The text as a string, placeholders replaced by their operators.
    var string: String {
      var result = ""
      for character in characters { result += operators[character] ?? String(character) }
      return result
    }

    func slice(_ range: Range<Int>) -> Text { Text(characters: Array(characters[range]), operators: operators) }

    func hasPrefix(_ prefix: String, at offset: Int = 0) -> Bool {
      let prefix = Array(prefix)
      return offset + prefix.count <= characters.count && Array(characters[offset..<(offset + prefix.count)]) == prefix
    }

    /// The index of the bracket that closes the one at `open` (`(`, `<`, `[` or `{`); the `>` of
    /// an arrow `->` closes nothing.
    func closingBracket(from open: Int) -> Int? {
      var depth = 0
      var index = open
      while index < characters.count {
        if isOpening(at: index) { depth += 1 }
        if isClosing(at: index) {
          depth -= 1
          if depth == 0 { return index }
        }
        index += 1
      }
      return nil
    }

    /// The ranges between occurrences of `separator` outside brackets.
    func topLevelRanges(separatedBy separator: String) -> [Range<Int>] {
      var ranges: [Range<Int>] = []
      var depth = 0
      var start = 0
      var index = 0
      while index < characters.count {
        if isOpening(at: index) { depth += 1 }
        if isClosing(at: index) { depth = max(depth - 1, 0) }
        if depth == 0, hasPrefix(separator, at: index) {
          ranges.append(start..<index)
          index += separator.count
          start = index
          continue
        }
        index += 1
      }
      ranges.append(start..<characters.count)
      return ranges
    }

    /// A local declaration's name, `Local #1`, without a local function's signature
    /// (`local #1 () -> ()`).
    var localDeclarationName: String? {
      guard let hash = characters.firstIndex(of: "#"), hash > 1, characters[hash - 1] == " " else { return nil }
      let name = characters[..<(hash - 1)]
      let number = characters[(hash + 1)...].prefix { $0.isNumber }
      guard !number.isEmpty, name.allSatisfy(isIdentifierCharacter) else { return nil }
      return String(name) + " #" + String(number)
    }

    /// The components of the dotted path the text starts with (`App`, `Feed`, `load`).
    var pathComponents: [String] { path(from: 0).components.map(\.name) }

    /// A declaration (`App.Feed.load<A>(to: App.View, Swift.Int) async -> ()`) as people write
    /// it (`Feed.load(to:_:)`); `isAsync` is set when it is an async function.
    ///
    /// - Parameter qualified: whether the path starts with a module (the outermost declaration
    ///   of a symbol), which is dropped unless `keepingModule`.
    func declarationText(qualified: Bool, keepingModule: Bool, isAsync: inout Bool) -> String {
      var start = 0
      if hasPrefix("static ") { start = 7 }
      if hasPrefix("default argument "), let of = Self.firstIndex(of: Array(" of "), in: characters) {
        return String(characters[..<(of + 4)])
          + slice((of + 4)..<characters.count).declarationText(
            qualified: qualified, keepingModule: keepingModule, isAsync: &isAsync)
      }
      var (components, end) = path(from: start)
      guard !components.isEmpty else { return typeText(keepingModule: keepingModule) }
      if qualified, components.count >= 2, !keepingModule || components[0].name == "Swift" { components.removeFirst() }
      let isFunction = end < characters.count && characters[end] == "("
      var result = ""
      for (index, component) in components.enumerated() {
        if index > 0 { result += "." }
        result += displayed(component.name)
        let isFunctionsOwn = isFunction && index == components.count - 1
        if let arguments = component.genericArguments, !isFunctionsOwn, let text = slice(arguments).typeArgumentsText() {
          result += "<" + text + ">"
        }
      }
      guard isFunction, let close = closingBracket(from: end) else {
        return result + (end < characters.count && !hasPrefix(" : ", at: end) ? slice(end..<characters.count).string : "")
      }
      result += "(" + slice((end + 1)..<close).argumentLabels() + ")"
      end = close + 1
      if hasPrefix(" async", at: end) { isAsync = true }
      return result
    }

    /// `a: App.Feed, Swift.Int` → `a:_:`.
    private func argumentLabels() -> String {
      guard !characters.isEmpty else { return "" }
      return topLevelRanges(separatedBy: ", ").map { range -> String in
        let parameter = characters[range]
        let label = parameter.prefix(while: isIdentifierCharacter)
        let isLabelled = !label.isEmpty && parameter.dropFirst(label.count).starts(with: [":", " "])
        return (isLabelled ? String(label) : "_") + ":"
      }.joined()
    }

    /// Type text without qualifiers: `Swift.Optional<App.Feed>` → `Feed?`,
    /// `App.Subscription<Tests.State>` → `Subscription<State>`. `keepingModule` keeps the module of
    /// the outermost type (never `Swift.`).
    func typeText(keepingModule: Bool) -> String {
      var result = ""
      var index = 0
      var depth = 0
      while index < characters.count {
        let character = characters[index]
        if isIdentifierCharacter(character), index == 0 || characters[index - 1] != "." {
          let (components, end) = path(from: index)
          result += typeName(components, keepingModule: keepingModule && depth == 0)
          index = end
          continue
        }
        if isOpening(at: index) { depth += 1 }
        if isClosing(at: index) { depth -= 1 }
        result += operators[character] ?? String(character)
        index += 1
      }
      return result
    }

    /// `App.Feed, Swift.Int` → `Feed, Int`; `A where A: Swift.Equatable` → `A`; `nil` for a
    /// bare where clause (an extension's, `< where A: P>`).
    private func typeArgumentsText() -> String? {
      let clause = topLevelRanges(separatedBy: " where ")
      guard clause.count == 1 || clause[0].count > 0, !hasPrefix(" where") else { return nil }
      return slice(clause[0]).topLevelRanges(separatedBy: ", ").map { slice($0).typeText(keepingModule: false) }.joined(separator: ", ")
    }

    private func typeName(_ path: [PathComponent], keepingModule: Bool) -> String {
      var path = path
      let module = path.count >= 2 && !Self.isGenericParameter(path[0].name) ? path[0].name : nil
      if module != nil, !keepingModule || module == "Swift" { path.removeFirst() }
      let arguments = path.last?.genericArguments.flatMap { slice($0).typeArgumentsText() }.map { $0.components(separatedBy: ", ") }
      if path.count == 1, module == nil || module == "Swift", let arguments {
        func grouped(_ type: String) -> String { type.contains(" ") ? "(\(type))" : type }
        switch (path[0].name, arguments.count) {
        case ("Optional", 1): return grouped(arguments[0]) + "?"
        case ("Array", 1): return "[\(arguments[0])]"
        case ("Dictionary", 2): return "[\(arguments[0]): \(arguments[1])]"
        default: break
        }
      }
      var result = ""
      for (index, component) in path.enumerated() {
        if index > 0 { result += "." }
        result += displayed(component.name)
        if let range = component.genericArguments, let text = slice(range).typeArgumentsText() {
          result += "<" + text + ">"
        }
      }
      return result
    }

    /// A path component's name, an operator's placeholder replaced by the operator.
    private func displayed(_ name: String) -> String {
      guard name.count == 1, let character = name.first else { return name }
      return operators[character] ?? name
    }

    /// One component of a dotted path, with the range of its generic arguments (inside `<…>`).
    struct PathComponent {
      var name: String
      var genericArguments: Range<Int>? = nil
    }

    /// The dotted path starting at `start` and the index after it.
    private func path(from start: Int) -> (components: [PathComponent], end: Int) {
      var components: [PathComponent] = []
      var index = start
      while index < characters.count {
        let nameEnd = characters[index...].firstIndex { !isIdentifierCharacter($0) } ?? characters.count
        guard nameEnd > index else { break }
        var component = PathComponent(name: String(characters[index..<nameEnd]))
        index = nameEnd
        if index < characters.count, characters[index] == "<", let close = closingBracket(from: index) {
          component.genericArguments = (index + 1)..<close
          index = close + 1
        }
        components.append(component)
        guard index + 1 < characters.count, characters[index] == ".", isIdentifierCharacter(characters[index + 1]) else { break }
        index += 1
      }
      return (components, index)
    }

    /// Whether the character at `index` opens a bracket (an operator's `<` is a placeholder).
    private func isOpening(at index: Int) -> Bool {
      DemangledName.bracket(characters[index], after: index > 0 ? characters[index - 1] : nil) == .opening
    }

    /// Whether the character at `index` closes a bracket (an arrow's `>` does not).
    private func isClosing(at index: Int) -> Bool {
      DemangledName.bracket(characters[index], after: index > 0 ? characters[index - 1] : nil) == .closing
    }

    private func isIdentifierCharacter(_ character: Character) -> Bool {
      character.isLetter || character.isNumber || character == "_" || character == "$" || operators[character] != nil
    }

    /// Generic parameters as the demangler names them: `A`, `B1`, `τ_0_0`, `Self`.
    static func isGenericParameter(_ name: String) -> Bool {
      if name == "Self" || name.hasPrefix("τ_") { return true }
      guard let first = name.first, first.isUppercase, first.isASCII else { return false }
      return name.dropFirst().allSatisfy(\.isNumber)
    }

    private static func firstIndex(of needle: [Character], in haystack: [Character]) -> Int? {
      guard needle.count <= haystack.count else { return nil }
      return (0...(haystack.count - needle.count)).first { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    private static func removing(_ needle: [Character], from characters: [Character]) -> [Character] {
      var characters = characters
      while let start = firstIndex(of: needle, in: characters) { characters.removeSubrange(start..<(start + needle.count)) }
      return characters
    }

    /// `(name in _6F9ECF150ADD9527A171C431DF6CF69B)` → `name`; a private initializer's
    /// `Type.(in _6F9E…).init` → `Type.init`.
    private static func removingDiscriminators(_ characters: [Character]) -> [Character] {
      var characters = characters
      let anonymous = Array("(in _")
      while let start = firstIndex(of: anonymous, in: characters) {
        let hashEnd = start + anonymous.count + 32
        guard hashEnd < characters.count, characters[(start + anonymous.count)..<hashEnd].allSatisfy(\.isHexDigit),
          characters[hashEnd] == ")"
        else { break }
        let followedByDot = hashEnd + 1 < characters.count && characters[hashEnd + 1] == "."
        characters.removeSubrange(start...(followedByDot ? hashEnd + 1 : hashEnd))
      }
      var searchFrom = 0
      let marker = Array(" in _")
      while let found = firstIndex(of: marker, in: Array(characters[searchFrom...])).map({ $0 + searchFrom }) {
        let hashStart = found + marker.count
        let hashEnd = hashStart + 32
        guard hashEnd < characters.count, characters[hashStart..<hashEnd].allSatisfy(\.isHexDigit), characters[hashEnd] == ")",
          let open = characters[..<found].lastIndex(of: "(")
        else {
          searchFrom = found + 1
          continue
        }
        let name = Array(characters[(open + 1)..<found])
        characters.replaceSubrange(open...hashEnd, with: name)
        searchFrom = open + name.count
      }
      return characters
    }
  }
}
