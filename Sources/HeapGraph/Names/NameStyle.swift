/// How a report for people writes Swift names: as people write them (``readable(homeModule:)``),
/// or in full as the snapshot has them (``full``, what JSON and SARIF always use).
///
/// The readable style names the report's *home module* once instead of on every name: the module
/// that declares most of the report's types. Names from other modules keep theirs, and the
/// standard library's `Swift.` is never written. References are joined with `→`, since `->`
/// also appears inside function types.
///
/// ```text
/// FeedViewModel.onUpdate → closure #1 in FeedViewModel.bind(to:).capture #1: FeedViewModel → FeedViewModel
///   in short: FeedViewModel.onUpdate → closure in FeedViewModel.bind(to:) → FeedViewModel
/// ```
public struct NameStyle: Sendable, Hashable {
  /// Whether names are made readable (``ReadableName``); `false` writes them in full.
  public var isReadable: Bool
  /// The module whose names are written without it.
  public var homeModule: String?

  /// Names exactly as the snapshot has them, joined with `->`.
  public static let full = NameStyle(isReadable: false, homeModule: nil)

  /// Readable names, without `homeModule` on the names it declares.
  public static func readable(homeModule: String?) -> NameStyle { NameStyle(isReadable: true, homeModule: homeModule) }

  /// Readable names whose home module is the one that declares most of `typeNames` (the first in
  /// alphabetical order on a tie), or none when no name has a module.
  public static func readable(forTypeNames typeNames: some Sequence<String>) -> NameStyle {
    var counts: [String: Int] = [:]
    for name in typeNames {
      if let module = ReadableName.module(of: name) { counts[module, default: 0] += 1 }
    }
    let home = counts.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key
    return .readable(homeModule: home)
  }

  /// A line saying which module the names leave out, for the top of a report; `nil` when none.
  ///
  /// ```text
  /// Names from FeedApp are written without their module.
  /// ```
  public var homeModuleNote: String? {
    guard isReadable, let homeModule else { return nil }
    return "Names from \(homeModule) are written without their module."
  }

  /// The separator of a chain of references.
  public var arrow: String { isReadable ? " → " : " -> " }

  /// A type name (a closure context's is its function's).
  public func type(_ name: String) -> String {
    guard isReadable else { return name }
    return ReadableName.type(name, keepingModule: keepsModule(of: name))
  }

  /// A demangled function name, such as a stack frame's.
  public func symbol(_ name: String) -> String {
    guard isReadable else { return name }
    return ReadableName.symbol(name, keepingModule: keepsModule(of: name))
  }

  /// `Feed.load() (Feed.swift:12)`: a stack frame's function and source location; for a site in
  /// inlined code, then the function that holds it (``StackFrame/inlinedIn``):
  /// `Owner.init(_:) (held.swift:8), inlined in plant() (held.swift:16)`.
  public func frame(_ frame: StackFrame) -> String {
    let own = ownFrame(frame)
    return frame.inlinedIn.map { "\(own), inlined in \(ownFrame($0))" } ?? own
  }

  /// A frame's function and source location, without the function it is inlined in.
  private func ownFrame(_ frame: StackFrame) -> String {
    var frame = frame
    frame.inlinedIn = nil
    guard isReadable, let symbol = frame.symbol else { return frame.description }
    let name = self.symbol(symbol)
    return frame.sourceLocation.map { "\(name) (\($0))" } ?? name
  }

  /// `Feed.onUpdate`: an object's type and the reference it holds, if any.
  public func link(type typeName: String, reference: String?) -> String {
    type(typeName) + (reference.map { "." + $0 } ?? "")
  }

  /// A chain of references: each object's type and the label of its reference to the next.
  public func chain(_ links: [HeapFinding.Link]) -> String {
    links.map { link(type: $0.typeName, reference: $0.reference) }.joined(separator: arrow)
  }

  /// A survivor's suspect reference, the one into its last object from the object before it;
  /// `nil` when a root holds the survivor itself.
  public func suspect(in path: [HeapFinding.Link]) -> String? {
    guard path.count > 1 else { return nil }
    let source = path[path.count - 2]
    return link(type: source.typeName, reference: source.reference ?? "?")
  }

  /// A cycle, back to its first object: `Feed.onUpdate → closure #1 in Feed.load().capture #0: Feed → Feed`.
  public func cycle(_ cycle: RetainCycle) -> String {
    isReadable ? self.cycle(cycle.links) : cycle.description
  }

  /// The objects of a cycle, each with its reference to the next, back to the first.
  public func cycle(_ links: [HeapFinding.Link]) -> String {
    guard let first = links.first else { return "" }
    return chain(links) + arrow + type(first.typeName)
  }

  /// A finding's summary: its cycle, its leaked object, or its survivor's path with the suspect
  /// reference. A finding without links (read from a baseline) keeps its summary.
  public func summary(of finding: HeapFinding) -> String {
    guard isReadable, !finding.links.isEmpty else { return finding.summary }
    let note = finding.note.map { " (\($0))" } ?? ""
    switch finding.kind {
    case .cycle: return cycle(finding.links) + note
    case .leak: return leak(finding.links, summary: finding.summary) + note
    case .survivor:
      let suspect = suspect(in: finding.links) ?? "root"
      return (finding.root.map { $0 + ": " } ?? "") + chain(finding.links) + " (suspect \(suspect))" + note
    }
  }

  /// A leak's entry: the cycle of its links (an object that holds itself is one link with a
  /// reference), the chain of links whose last has no reference (a task to where it waits:
  /// `Task.suspended → await in closure #1 in start()`), or its one object's type; `summary`
  /// (its full form) when there are no links or names are written in full.
  public func leak(_ links: [HeapFinding.Link], summary: String) -> String {
    guard isReadable, let first = links.first else { return summary }
    if links.count > 1, links.last?.reference == nil { return chain(links) }
    return links.count > 1 || first.reference != nil ? cycle(links) : type(first.typeName)
  }

  /// Readable names, with the home module of the findings' types.
  public static func readable(for findings: some Sequence<HeapFinding>) -> NameStyle {
    .readable(forTypeNames: findings.lazy.flatMap { $0.links.map(\.typeName) })
  }

  /// A cycle in the fewest words, to paste into an issue: types without modules or generic
  /// arguments, closures by the declaration they are written in, and field labels (not captures).
  /// `nil` when that is the cycle's line already (`Cache.entries["a"] → Entry.owner → Cache`), so
  /// reports show it only when it says something shorter.
  ///
  /// ```text
  /// Subscription.observer → closure in Subscription._select(_:) → Subscription
  /// ```
  public func shortForm(of cycle: RetainCycle) -> String? {
    let parts = cycle.elements.map { element -> String in
      let name = shortName(element.typeName, kind: element.kind)
      guard let reference = element.reference, element.kind == .classInstance, !reference.hasPrefix("capture #") else { return name }
      return name + "." + reference
    }
    let short = (parts + [shortName(cycle.elements[0].typeName, kind: cycle.elements[0].kind)]).joined(separator: " → ")
    return short == self.cycle(cycle) ? nil : short
  }

  /// The longest title a report gives a leak in full (``leak(_:summary:)``): longer ones are
  /// written in their short form (``title(ofLeak:summary:)``), so that a title fits a line.
  public static let longestFullTitle = 100

  /// A leak group's title: its entry as ``leak(_:summary:)`` writes it when that fits
  /// ``longestFullTitle``; otherwise in short, as ``shortForm(of:)`` writes a cycle (types
  /// without generic arguments, closures by where they are written, no captures), and with its
  /// middle links left out when that is still too long. The group's lines below it name every
  /// link in full.
  ///
  /// ```text
  /// PassthroughSubject<(), Never>.downstreams.single → PassthroughSubject<(), Never>.Conduit<Publishers.FlatMap<…>>.parent → …
  ///   → PassthroughSubject.downstreams.single → PassthroughSubject.Conduit.parent → PassthroughSubject
  /// ValueConcurrentObserver.reducer.__value → closure in test #1 → box<DatabaseCancellable?>.value → … (5 links)
  ///   → ValueConcurrentObserver.reducer.__value → … 5 more … → closure in AnyDatabaseCancellable.init(_:) → ValueConcurrentObserver
  /// ```
  public func title(ofLeak members: [(typeName: String, kind: ObjectKind, reference: String?)], summary: String) -> String {
    let links = members.map { HeapFinding.Link(typeName: $0.typeName, reference: $0.reference) }
    let full = leak(links, summary: summary)
    guard isReadable, full.count > Self.longestFullTitle, let first = members.first else { return full }
    let parts = members.map { member -> String in
      let name = shortName(member.typeName, kind: member.kind)
      guard let reference = member.reference, member.kind != .closureContext, !reference.hasPrefix("capture #") else { return name }
      return name + "." + reference
    }
    guard members.count > 1 || first.reference != nil else { return parts[0] }
    let closing = shortName(first.typeName, kind: first.kind)
    let short = (parts + [closing]).joined(separator: arrow)
    guard short.count > Self.longestFullTitle, parts.count > 3 else { return short }
    return ([parts[0], "… \(parts.count - 2) more …", parts[parts.count - 1], closing]).joined(separator: arrow)
  }

  private func shortName(_ typeName: String, kind: ObjectKind) -> String {
    ReadableName.remembered(.shortName, typeName, kind == .closureContext) { Self.shortName(typeName, kind: kind) } ?? typeName
  }

  private static func shortName(_ typeName: String, kind: ObjectKind) -> String {
    let name = ReadableName.type(typeName)
    if SuspensionPoint.isSuspensionPoint(name) {  // where a task waits: `await in Worker.run()`
      return SuspensionPoint.typeNamePrefix + shortName(String(name.dropFirst(SuspensionPoint.typeNamePrefix.count)), kind: .classInstance)
    }
    if kind == .closureContext {
      var contexts = DemangledName(name).contexts[...]
      while contexts.count > 1, let innermost = contexts.first, DemangledName.closureNumber(of: innermost) != nil {
        contexts = contexts.dropFirst()
      }
      return "closure in " + contexts.joined(separator: " in ")
    }
    // Generic arguments are dropped: `Subscription<Int>` → `Subscription`.
    var result = ""
    var depth = 0
    for character in name {
      if character == "<" { depth += 1 }
      if depth == 0 { result.append(character) }
      if character == ">", depth > 0 { depth -= 1 }
    }
    return result
  }

  private func keepsModule(of name: String) -> Bool {
    guard let module = ReadableName.module(of: name) else { return false }
    return module != homeModule
  }

  /// The types of `counts` that `named` does not name already, most numerous first
  /// (`3 × Dispatch.DispatchQueue, 2 × closure #1 in Uploader.start()`), at most `limit` of them;
  /// `nil` when there are none.
  public func otherTypes(_ counts: [String: Int], named: [String], limit: Int = 5) -> String? {
    let others = counts.filter { !named.contains($0.key) }.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
    guard !others.isEmpty else { return nil }
    var text = others.prefix(limit).map { "\($0.value) × \(type($0.key))" }.joined(separator: ", ")
    if others.count > limit { text += " and \(count(others.count - limit, "more type"))" }
    return text
  }
}
