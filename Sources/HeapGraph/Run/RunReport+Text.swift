extension RunReport {
  /// The report for people (the example in ``RunReport``'s documentation).
  ///
  /// - Parameter names: how to write Swift names; by default readable, with the home module of
  ///   the leaks' types.
  public func renderText(names: NameStyle? = nil) -> String {
    let names = names ?? nameStyle
    var out = renderProcesses(names: names)
    if leaks.isEmpty {
      out += "\nLeaks: none\n"
    } else {
      let objects = leaks.reduce(0) { $0 + $1.objectCount }
      out += "\nLeaks: \(count(objects, "object")) in \(count(leaks.count, "group"))\n"
      let shared = processes.reduce(0) { $0 + $1.sharedLeakedObjectCount }
      if shared > 0 { out += "(\(count(shared, "more leaked object")) held by several groups \(shared == 1 ? "is" : "are") counted in none.)\n" }
      if let note = names.homeModuleNote { out += note + "\n" }
      for (index, leak) in leaks.enumerated() {
        out += "  \(index + 1)) \(leak.instanceCount) × \(names.leak(leak.links, summary: leak.summary))  (\(count(leak.objectCount, "object")), \(grouped(leak.retainedSize)) bytes)\n"
        if !leak.tests.isEmpty { out += "     in test\(leak.tests.count == 1 ? "" : "s") \(leak.tests.joined(separator: ", "))\n" }
        for member in leak.members {
          let name = names.link(type: member.typeName, reference: member.reference)
          // A closure's site is its own code: its file and line say where it is written.
          let site = member.kind == .closureContext ? member.site.map { "written at \($0.sourceLocation ?? names.frame($0))" }
            : member.site.map { "allocated at \(names.frame($0))" }
          out += "     - \(name)" + (site.map { "  " + $0 } ?? "") + "\n"
        }
        if let others = names.otherTypes(leak.objectTypes, named: leak.members.map(\.typeName)) { out += "     also holds \(others)\n" }
        if processes.count > 1 { out += "     in \(leak.processes.joined(separator: "; "))\n" }
        out += "     fingerprint \(leak.fingerprint)\n"
      }
    }
    if !suppressed.isEmpty {
      var byOrigin: [String: Int] = [:]
      for (_, rule) in suppressed { byOrigin[rule.origin, default: 0] += 1 }
      let origins = byOrigin.sorted { $0.key < $1.key }.map { "\($0.value) by \($0.key == "default" ? "the default rules" : $0.key)" }
      let objects = suppressed.reduce(0) { $0 + $1.leak.objectCount }
      out += "\nSuppressed: \(count(suppressed.count, "group")) (\(count(objects, "object"))): \(origins.joined(separator: ", "))\n"
    }
    return out
  }

  /// The report's first lines: the processes checked, with what their captures could not see and
  /// the objects they found held by unbalanced retains.
  public func renderProcesses(names: NameStyle? = nil) -> String {
    let names = names ?? nameStyle
    var out = ""
    for process in processes {
      out += "Checked \(process.description): \(count(process.objectCount, "object")) when it exited, "
      out += "\(grouped(process.leakedObjectCount)) leaked\n"
      // Failed capture attempts matter; what reflection could not see of library types is
      // common and mostly noise, so it is counted.
      let failures = process.diagnostics.filter { $0.kind == .captureFailed }
      for failure in failures { out += "  note: \(failure.message)\n" }
      let unbalanced = process.diagnostics.compactMap(UnbalancedRetain.init(diagnostic:))
      if !unbalanced.isEmpty {
        let types = Dictionary(grouping: unbalanced, by: \.typeName).map { name, retains in
          retains.count == 1 ? names.type(name) : "\(retains.count) × \(names.type(name))"
        }.sorted()
        out += "  note: \(count(unbalanced.count, "object")) retained with no pointer left to \(unbalanced.count == 1 ? "it" : "them"), "
        out += "counted as leaked (unbalanced retains, such as Unmanaged.passRetained whose pointer was dropped): "
        out += types.joined(separator: ", ") + "\n"
      }
      let others = process.diagnostics.count - failures.count - unbalanced.count
      if others > 0 {
        out += "  note: \(count(others, "diagnostic")) of what the capture could not see, in the snapshot's metadata.diagnostics (--snapshot keeps it)\n"
      }
    }
    return processes.isEmpty ? "No process was checked.\n" : out
  }
}
