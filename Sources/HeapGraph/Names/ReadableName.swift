/// Swift names as people write them, made from the demangler's full text: what crash reports and
/// debuggers show, with the generic arguments of types kept.
///
/// - No module qualifiers (unless asked to keep the outermost one) and no `Swift.` anywhere.
/// - Functions by their argument labels, without types, results or generic parameters:
///   `SubscriptionBox.init(originalSubscription:transformedSubscription:subscriber:)`.
/// - No private-declaration discriminators: `(_select in _E350C4…)` becomes `_select`.
/// - Closures without their signature: `closure #1 in Feed.load()`.
/// - Async partial functions as their function: `ProfileSwiftTests.actorLeak() (async)`.
/// - Sugar for optionals, arrays and dictionaries: `Feed?`, `[Item]`, `[String: Int]`.
///
/// ```text
/// closure #1 (A1?, A1) -> () in ReSwift.SubscriptionBox.init<A>(originalSubscription: ReSwift.Subscription<A1>, transformedSubscription: ReSwift.Subscription<A>?, subscriber: ReSwift.AnyStoreSubscriber) -> ReSwift.SubscriptionBox<A>
///   → closure #1 in SubscriptionBox.init(originalSubscription:transformedSubscription:subscriber:)
/// (1) suspend resume partial function for ReSwift.ProfileSwiftTests.actorLeak() async -> ()
///   → ProfileSwiftTests.actorLeak() (async)
/// ReSwift.Subscription<RWTests.RWAppState>
///   → Subscription<RWAppState>
/// ```
///
/// Text it does not recognise is returned with only its qualifiers dropped, so a name never
/// disappears from a report.
public enum ReadableName {
  /// A demangled symbol or closure name (a stack frame, a closure context's type name) as people
  /// write it.
  ///
  /// - Parameters:
  ///   - demangled: the demangler's full text of the name.
  ///   - keepingModule: whether to keep the module of the outermost declaration
  ///     (`FeedApp.FeedViewModel.bind(to:)`), for lists that mix modules.
  public static func symbol(_ demangled: String, keepingModule: Bool = false) -> String {
    remembered(.symbol, demangled, keepingModule) { readableSymbol(demangled, keepingModule: keepingModule) } ?? demangled
  }

  private static func readableSymbol(_ demangled: String, keepingModule: Bool) -> String {
    let thunkOf = "reabstraction thunk of "  // a thunk's context, named by the closure it wraps
    if demangled.hasPrefix(thunkOf) {
      return thunkOf + readableSymbol(String(demangled.dropFirst(thunkOf.count)), keepingModule: keepingModule)
    }
    let name = DemangledName(demangled)
    // Words that say what the code is of are kept; thunks and copies of the code are not.
    let prefix = name.prefixes.filter { $0.kind == .relation }.map(\.text).joined()
    var isAsync = name.isAsyncPartialFunction
    if name.isReabstractionThunk { return "reabstraction thunk" }
    // "X in conformance T : P in M": the witness, in its type.
    if let conformance = name.contexts.dropFirst().firstIndex(where: { $0.hasPrefix("conformance ") }) {
      let witness = name.contexts[..<conformance]
      let conformingText = name.declaration[name.contexts[conformance].dropFirst("conformance ".count).startIndex...]
      let conforming = DemangledName.topLevelParts(of: conformingText, separatedBy: " : ")[0]
      return prefix + readable(chain: witness, keepingModule: false, isAsync: &isAsync) + " in "
        + Text(preparing: String(conforming)).typeText(keepingModule: false)
    }
    let declaration = readable(chain: name.contexts[...], keepingModule: keepingModule, isAsync: &isAsync)
    return prefix + declaration + (isAsync ? " (async)" : "")
  }

  /// A type name (`ReSwift.Subscription<RWTests.RWAppState>`) as people write it
  /// (`Subscription<RWAppState>`). Closure contexts, whose type name is their function's, go
  /// through ``symbol(_:keepingModule:)``.
  public static func type(_ name: String, keepingModule: Bool = false) -> String {
    remembered(.type, name, keepingModule) {
      name.containsBytes(" in ") || DemangledName(name).isClosure
        ? readableSymbol(name, keepingModule: keepingModule) : Text(preparing: name).typeText(keepingModule: keepingModule)
    } ?? name
  }

  /// The module that declares the outermost declaration of a type or symbol name:
  /// `ReSwift` for `closure #1 in ReSwift.Subscription.select<A>(…)`; `nil` for names without
  /// one (`box<Int>`, `Task`) and for the standard library's types.
  public static func module(of name: String) -> String? {
    remembered(.module, name, false) { moduleOfOutermostDeclaration(name) }
  }

  private static func moduleOfOutermostDeclaration(_ name: String) -> String? {
    guard let outermost = DemangledName(name).contexts.last else { return nil }
    switch plainStart(of: outermost) {
    case .module(let module): return module == "Swift" || Text.isGenericParameter(module) ? nil : module
    case .noModule: return nil
    case nil: break
    }
    let components = Text(preparing: String(outermost)).pathComponents
    guard components.count >= 2, let first = components.first, first != "Swift", !Text.isGenericParameter(first) else { return nil }
    return first
  }

  /// How a declaration that starts plainly, with an ASCII name, starts.
  private enum PlainStart {
    /// The name, then a dot and another name: `AppTests.PairTests.testPair() -> ()` → `AppTests`.
    case module(String)
    /// The name, then a space: `variable initialization expression of …`, `static App.make()`.
    case noModule
  }

  /// How `declaration` starts, read from its bytes, when what ``Text/pathComponents`` reads first
  /// is plain; `nil` for any other start (an extension's context, a generic type, an operator,
  /// a lazy variable's storage), which it reads.
  private static func plainStart(of declaration: Substring) -> PlainStart? {
    func isNameByte(_ byte: UInt8) -> Bool {
      (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
        || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
    }
    let bytes = declaration.utf8
    let end = bytes.firstIndex { !isNameByte($0) } ?? bytes.endIndex
    guard end != bytes.startIndex, end != bytes.endIndex, declaration[..<end].utf8.firstRange(ofBytes: "$__lazy_storage_$_") == nil else {
      return nil
    }
    switch bytes[end] {
    case UInt8(ascii: "."):
      let next = bytes.index(after: end)
      return next != bytes.endIndex && isNameByte(bytes[next]) ? .module(String(declaration[..<end])) : nil
    case UInt8(ascii: " "):
      let operators = [" infix", " prefix", " postfix"]
      return operators.contains { declaration.utf8.firstRange(ofBytes: $0) != nil } ? nil : .noModule
    default:
      return nil
    }
  }

  /// The segments of `closure #1 in Local #1 in App.make()`, each made readable; only the last
  /// one is qualified (the others are relative to it).
  private static func readable(chain contexts: ArraySlice<Substring>, keepingModule: Bool, isAsync: inout Bool) -> String {
    var segments = contexts.map { Text(preparing: String($0)) }
    // A local type's initializer names its result in full, with the same context:
    // `init() -> Local #1 in App.make() -> AnyObject in Local #1 in App.make() -> AnyObject`.
    for index in segments.indices.reversed() {
      let segment = segments[index].string
      guard let arrow = segment.ranges(of: ") -> ").last else { continue }
      let rest = segments.count - index - 1
      guard rest % 2 == 1 else { continue }
      let result = String(segment[arrow.upperBound...])
      let first: [String] = [result] + segments[(index + 1)..<(index + 1 + rest / 2)].map(\.string)
      let second: [String] = segments[(index + 1 + rest / 2)...].map(\.string)
      if first == second { segments.removeSubrange((index + 1)..<(index + 1 + rest / 2)) }
    }
    var parts: [String] = []
    for (index, segment) in segments.enumerated() {
      if let closure = DemangledName.closureNumber(of: Substring(segment.string)) {
        parts.append(String(closure))
        continue
      }
      if let local = segment.localDeclarationName {
        parts.append(local)
        continue
      }
      let isLast = index == segments.count - 1
      var declarationIsAsync = false
      parts.append(segment.declarationText(qualified: isLast, keepingModule: keepingModule, isAsync: &declarationIsAsync))
      if declarationIsAsync && segments.count == 1 { isAsync = true }
    }
    return parts.joined(separator: " in ")
  }
}
