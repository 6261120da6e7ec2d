extension RunReport {
  /// The report for people (the example in ``RunReport``'s documentation).
  ///
  /// - Parameters:
  ///   - names: how to write Swift names; by default readable, with the home module of the
  ///     leaks' types.
  ///   - listsTestCodeLeaks: whether leaks through test code (``Leak/isThroughTestCode``) are
  ///     listed after the library code's even when there are some of those; by default they are
  ///     only counted then.
  public func renderText(names: NameStyle? = nil, listsTestCodeLeaks: Bool = false) -> String {
    reportText(names: names, listsTestCodeLeaks: listsTestCodeLeaks).description
  }

  /// The option that lists the leaks through test code, which the text report names where it
  /// only counts them.
  package static let listTestCodeLeaksOption = "--test-code-leaks"

  /// The report as lines with their roles (see ``renderText(names:listsTestCodeLeaks:)``).
  package func reportText(names: NameStyle? = nil, listsTestCodeLeaks: Bool = false) -> ReportText {
    let names = names ?? nameStyle
    var text = processesText(names: names)
    text.append("")
    let unchecked = endedEarlyOnTheirOwn.count
    if leaks.isEmpty && unchecked > 0 {
      let notChecked = "\(count(unchecked, "process")) \(unchecked == 1 ? "was" : "were") not checked"
      text.append(
        processes.isEmpty
          ? "Leaks: unknown, \(notChecked)"
          : "Leaks: none in the processes checked, but \(notChecked): \(unchecked == 1 ? "its" : "their") leaks are unknown",
        as: .failure)
    } else if leaks.isEmpty {
      text.append("Leaks: none", as: .success)
    } else {
      let objects = leaks.reduce(0) { $0 + $1.objectCount }
      let throughTests = leaks.filter(\.isThroughTestCode)
      let library = leaks.count - throughTests.count
      let split =
        throughTests.isEmpty
        ? ""
        : library == 0
          ? ", all through test code"
          : ": \(grouped(library)) in library code, \(grouped(throughTests.count)) through test code"
      text.append("Leaks: \(count(objects, "object")) in \(count(leaks.count, "group"))\(split)", as: .heading)
      let shared = processes.reduce(0) { $0 + $1.sharedLeakedObjectCount }
      if shared > 0 {
        text.append("(\(count(shared, "more leaked object")) held by several groups \(shared == 1 ? "is" : "are") counted in none.)")
      }
      if let note = names.homeModuleNote { text.append(note, as: .detail) }
      // Leaks through test code follow the library code's (``leaks`` is in that order); with
      // some of the library's, they are counted unless asked for.
      let listed = library > 0 && !listsTestCodeLeaks ? leaks.prefix(library) : leaks[...]
      for (index, leak) in listed.enumerated() {
        if index == library && library > 0 {
          text.append("")
          text.append("Through test code: \(count(throughTests.count, "group")), a test's own type or closure in each entry", as: .heading)
        }
        appendLeak(leak, number: index + 1, names: names, to: &text)
      }
      if listed.count < leaks.count {
        let folded = throughTests.reduce(0) { $0 + $1.objectCount }
        text.append("")
        text.append(
          "Through test code: \(count(throughTests.count, "group")) (\(count(folded, "object"))), a test's own type or closure "
            + "in each entry (a test helper that keeps what it subscribes to, a closure written in a test); "
            + "\(Self.listTestCodeLeaksOption) lists them", as: .note)
      }
    }
    if !suppressed.isEmpty {
      var byOrigin: [String: Int] = [:]
      for (_, rule) in suppressed { byOrigin[rule.origin, default: 0] += 1 }
      let origins = byOrigin.sorted { $0.key < $1.key }.map { "\($0.value) by \($0.key == "default" ? "the default rules" : $0.key)" }
      let objects = suppressed.reduce(0) { $0 + $1.leak.objectCount }
      text.append("")
      text.append(
        "Suppressed: \(count(suppressed.count, "group")) (\(count(objects, "object"))): \(origins.joined(separator: ", "))", as: .heading)
      for (leak, rule) in suppressed {
        let origin = rule.origin == "default" ? "a default rule" : rule.origin
        text.append(
          "- \(leak.instanceCount) × \(leak.title(names: names))  (\(count(leak.objectCount, "object")))  "
            + "by \(rule.kind.rawValue) \(rule.pattern)  (\(origin))", indent: 2)
      }
    }
    return text
  }

  /// One leak group: its entry, the tests that allocated it, its members with their sites, and
  /// its fingerprint.
  private func appendLeak(_ leak: Leak, number: Int, names: NameStyle, to text: inout ReportText) {
    let entry = leak.title(names: names)
    text.append(
      [
        .itemNumber(number),
        " \(leak.instanceCount) × \(entry)  (\(count(leak.objectCount, "object")), \(grouped(leak.retainedSize)) bytes)",
      ],
      indent: 2)
    if let ownSite = leak.ownSite, !leak.members.contains(where: { $0.site.map(ownSite.isSameLine) == true }) {
      text.append(["made by this package's code at "] + .frame(ownSite, names: names), indent: 5)
    }
    if let tests = leak.testList(names: names) { text.append(tests, indent: 5) }
    for member in leak.members {
      var line: [ReportText.Span] = ["- \(names.link(type: member.typeName, reference: member.reference))"]
      if let site = member.site {
        // A closure's site is its own code: its file and line say where it is written (a
        // thunk's code has none).
        let phrase = SitePhrase.of(kind: member.kind, typeName: member.typeName)
        if SitePhrase.isLocationOnly(kind: member.kind, typeName: member.typeName) {
          if let location = site.sourceLocation { line += ["  \(phrase) ", .location(location)] }
        } else {
          line += ["  \(phrase) "] + .frame(site, names: names)
        }
      }
      text.append(line, indent: 5)
    }
    if let others = names.otherTypes(leak.objectTypes, named: leak.members.map(\.typeName)) {
      text.append("also holds \(others)", indent: 5)
    }
    if processes.count > 1 { text.append("in \(leak.processes.joined(separator: "; "))", indent: 5) }
    text.append("fingerprint \(leak.fingerprint)", as: .detail, indent: 5)
  }

  /// The report's first lines: the processes checked, with what their captures could not see and
  /// the objects they found held by unbalanced retains, then the processes not checked and why.
  package func renderProcesses(names: NameStyle? = nil) -> String {
    processesText(names: names ?? nameStyle).description
  }

  /// The lines of ``renderProcesses(names:)`` with their roles: a process's line is a heading,
  /// the notes on its capture are indented under it; a process the agent refused is a note of
  /// its own after them.
  private func processesText(names: NameStyle) -> ReportText {
    var text = ReportText()
    if processes.isEmpty { text.append("No process was checked.") }
    for process in processes {
      text.append(
        "Checked \(process.description): \(count(process.objectCount, "object")) when it exited, "
          + "\(grouped(process.leakedObjectCount)) leaked" + (process.captureDuration.map { " (\($0))" } ?? ""), as: .heading)
      // Failed capture attempts matter, each said once; what reflection could not see of
      // library types is common and gives the reader nothing to do: the JSON report counts it.
      let failures = process.distinctDiagnostics.filter { $0.diagnostic.kind == .captureFailed }
      for failure in failures {
        text.append(
          "note: \(failure.diagnostic.message)" + (failure.occurrences > 1 ? " (\(failure.occurrences) times)" : ""), as: .note, indent: 2)
      }
      let unbalanced = process.diagnostics.compactMap(UnbalancedRetain.init(diagnostic:)).filter {
        !process.suppressedTypeNames.contains($0.typeName)
      }
      if !unbalanced.isEmpty {
        let types = Dictionary(grouping: unbalanced, by: \.typeName).map { name, retains in
          retains.count == 1 ? names.type(name) : "\(retains.count) × \(names.type(name))"
        }.sorted()
        text.append(
          "note: \(count(unbalanced.count, "object")) retained though no word of memory refers to \(unbalanced.count == 1 ? "it" : "them") "
            + "(no heap block, global, stack, thread-local or pthread-specific value), "
            + "counted as leaked (unbalanced retains, such as Unmanaged.passRetained whose pointer was dropped): "
            + types.joined(separator: ", "), as: .note, indent: 2)
      }
    }
    for refusal in refusals { text.append("Not checked \(refusal.process): \(refusal.reason)", as: .note) }
    for ended in endedEarlyOnTheirOwn { text.append("Not checked \(ended.process): \(ended.reason)", as: .failure) }
    let children = childrenEndedEarly
    if !children.isEmpty {
      let bySignal = Dictionary(grouping: children) { $0.signal.map { "signal \($0.number) (\($0.description))" } ?? "an unseen signal" }
        .map { "\($0.value.count) × \($0.key)" }.sorted()
      text.append(
        "Not checked: \(count(children.count, "process")) that checked processes started (as a test that expects a crash does) "
          + "ended before they exited, each judged by the test that started it: \(bySignal.joined(separator: ", "))", as: .note)
    }
    return text
  }
}

extension RunReport.Leak {
  /// The group's title: its entry, in short when it is longer than a line
  /// (``NameStyle/title(ofLeak:summary:)``).
  func title(names: NameStyle) -> String {
    names.title(ofLeak: members.map { ($0.typeName, $0.kind, $0.reference) }, summary: summary)
  }

  /// `in tests AppTests.testA(), AppTests.testB() and 3 more`: the tests that made the leak (see
  /// ``RunReport/testList(_:names:limit:)``).
  func testList(names: NameStyle, limit: Int = 6) -> String? {
    RunReport.testList(tests, names: names, limit: limit)
  }
}

extension RunReport {
  /// `in tests AppTests.testA(), AppTests.testB() and 3 more`: `tests` named readably, at most
  /// `limit` of them (the JSON report lists all), a set-up's role kept; `nil` when there is none.
  package static func testList(_ tests: [String], names: NameStyle, limit: Int = 6) -> String? {
    guard !tests.isEmpty else { return nil }
    let shown = tests.prefix(tests.count > limit ? limit - 1 : limit).map { test in
      let (function, roleSuffix) = TestAttribution.splitRole(test)
      return names.symbol(function) + roleSuffix
    }
    let more = tests.count - shown.count
    return "in test\(tests.count == 1 ? "" : "s") \(shown.joined(separator: ", "))" + (more > 0 ? " and \(more) more" : "")
  }
}
