extension GateOutcome {
  /// The verdict for people: the new findings, leaks and survivors before cycles.
  ///
  /// - Parameters:
  ///   - baseline: how to name the baseline (its path).
  ///   - acceptCommand: how the reader accepts the current findings, if they can (the CLI passes
  ///     its `--update-baseline` command line); said after new and fixed findings.
  ///   - names: how to write Swift names; by default readable (``nameStyle``).
  public func renderText(baseline: String, acceptCommand: String? = nil, names: NameStyle? = nil) -> String {
    reportText(baseline: baseline, acceptCommand: acceptCommand, names: names).description
  }

  /// The verdict as lines with their roles (see ``renderText(baseline:acceptCommand:names:)``).
  package func reportText(baseline: String, acceptCommand: String? = nil, names: NameStyle? = nil) -> ReportText {
    let names = names ?? nameStyle
    var text = ReportText()
    for sentence in uncheckedProcesses { text.append(sentence, as: .failure) }
    if newFindings.isEmpty {
      text.append("No new leaks: \(count(acceptedFindings.count, "accepted finding")) still present.", as: .success)
    } else {
      text.append("\(count(newFindings.count, "new finding")) (not in the baseline \(baseline)):", as: .failure)
      if let note = names.homeModuleNote { text.append(note, as: .detail) }
      for finding in HeapFinding.inReadingOrder(newFindings) {
        text.append(
          "\(finding.kind.rawValue) \(finding.fingerprint)  \(finding.count > 1 ? "\(finding.count) × " : "")\(names.summary(of: finding))",
          indent: 2)
        if let location = finding.location { text.append(["allocated at "] + .frame(location, names: names), indent: 4) }
      }
      if let acceptCommand {
        text.append("Fix them, or accept them with:")
        text.append(acceptCommand, indent: 2)
        text.append("and write the reason for each in the baseline.")
      }
    }
    if !fixedFingerprints.isEmpty {
      text.append(
        "\(count(fixedFingerprints.count, "accepted finding")) no longer found (fixed): \(fixedFingerprints.joined(separator: ", ")).",
        as: .success)
      if let acceptCommand {
        text.append("Tighten the baseline with:")
        text.append(acceptCommand, indent: 2)
      }
    }
    return text
  }

  /// Readable names, with the home module of the new and accepted findings' types.
  public var nameStyle: NameStyle { .readable(for: newFindings + acceptedFindings) }

  /// The verdict for machines, in the `swift-leak-gate` format, version 1.
  ///
  /// - Parameter exitStatus: the status the gate exits with, recorded in the document for CI
  ///   scripts that read the file rather than the status.
  public func renderJSON(exitStatus: Int32) -> String {
    var writer = JSONWriter()
    writer.beginObject(multiline: true)
    writer.field("format", "swift-leak-gate")
    writer.field("version", 1)
    writer.field("exitStatus", Int(exitStatus))
    for (key, findings) in [("new", newFindings), ("accepted", acceptedFindings)] as [(StaticString, [HeapFinding])] {
      writer.key(key)
      writer.beginArray(multiline: true)
      for finding in findings { finding.write(into: &writer) }
      writer.endArray()
    }
    writer.key("fixed")
    writer.beginArray()
    for fingerprint in fixedFingerprints { writer.string(fingerprint) }
    writer.endArray()
    if !uncheckedProcesses.isEmpty {
      writer.key("notChecked")
      writer.beginArray(multiline: true)
      for sentence in uncheckedProcesses { writer.string(sentence) }
      writer.endArray()
    }
    writer.endObject()
    return writer.finishDocumentText()
  }

  /// SARIF 2.1.0: one result per finding (`baselineState` new, unchanged or absent), with the
  /// allocation site as the physical location so that code-scanning UIs annotate that line.
  /// Files under `sourceRoot` (an absolute directory, usually the repository checkout) are written
  /// relative to it, with `uriBaseId` `%SRCROOT%`, as GitHub code scanning expects.
  public func renderSARIF(toolVersion: String, sourceRoot: String? = nil) -> String {
    let root = sourceRoot.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
    var writer = JSONWriter()
    writer.beginObject(multiline: true)
    writer.field("$schema", "https://json.schemastore.org/sarif-2.1.0.json")
    writer.field("version", "2.1.0")
    writer.key("runs")
    writer.beginArray(multiline: true)
    writer.beginObject(multiline: true)
    Self.writeSARIFTool(version: toolVersion, into: &writer)
    if let root {
      writer.key("originalUriBaseIds")
      writer.beginObject()
      writer.key("%SRCROOT%")
      writer.beginObject()
      writer.field("uri", "file://" + root)
      writer.endObject()
      writer.endObject()
    }
    if !uncheckedProcesses.isEmpty {
      // A process not checked is a failed execution of the tool, with what it could not check.
      writer.key("invocations")
      writer.beginArray(multiline: true)
      writer.beginObject(multiline: true)
      writer.field("executionSuccessful", false)
      writer.key("toolExecutionNotifications")
      writer.beginArray(multiline: true)
      for sentence in uncheckedProcesses {
        writer.beginObject()
        writer.field("level", "error")
        writer.key("message")
        writer.beginObject()
        writer.field("text", sentence)
        writer.endObject()
        writer.endObject()
      }
      writer.endArray()
      writer.endObject()
      writer.endArray()
    }
    writer.key("results")
    writer.beginArray(multiline: true)
    for finding in newFindings { finding.writeSARIFResult(isNew: true, sourceRoot: root, into: &writer) }
    for finding in acceptedFindings { finding.writeSARIFResult(isNew: false, sourceRoot: root, into: &writer) }
    writer.endArray()
    writer.endObject()
    writer.endArray()
    writer.endObject()
    return writer.finishDocumentText()
  }

  /// The SARIF `tool` member: this tool and the rules of its three kinds of finding.
  private static func writeSARIFTool(version: String, into writer: inout JSONWriter) {
    writer.key("tool")
    writer.beginObject()
    writer.key("driver")
    writer.beginObject()
    writer.field("name", "leak-detector")
    writer.field("version", version)
    writer.field("informationUri", "https://github.com/swift-leak-detector/swift-leak-detector")
    writer.key("rules")
    writer.beginArray()
    for (id, text) in [
      ("retain-cycle", "Objects keep each other alive through strong references."),
      ("leaked-object", "Objects unreachable from every root are still allocated."),
      ("survivor", "An object expected to be deallocated is still reachable from a root."),
    ] {
      writer.beginObject()
      writer.field("id", id)
      writer.key("shortDescription")
      writer.beginObject()
      writer.field("text", text)
      writer.endObject()
      writer.endObject()
    }
    writer.endArray()
    writer.endObject()
    writer.endObject()
  }

  /// JUnit XML: one test case per finding; new findings fail, and so does a test case for each
  /// process that was not checked.
  public func renderJUnit() -> String {
    let all = newFindings.map { ($0, true) } + acceptedFindings.map { ($0, false) }
    let tests = all.count + uncheckedProcesses.count
    let failures = newFindings.count + uncheckedProcesses.count
    var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    out += "<testsuites name=\"leak-detector\" tests=\"\(tests)\" failures=\"\(failures)\">\n"
    out += "  <testsuite name=\"leak-detector gate\" tests=\"\(tests)\" failures=\"\(failures)\">\n"
    for sentence in uncheckedProcesses {
      out +=
        "    <testcase classname=\"leak-detector.process\" name=\"\(xmlEscaped(sentence))\">\n"
        + "      <failure message=\"process not checked\">\(xmlEscaped(sentence))</failure>\n    </testcase>\n"
    }
    for (finding, isNew) in all {
      out +=
        "    <testcase classname=\"leak-detector.\(finding.kind.rawValue)\" name=\"\(xmlEscaped(finding.fingerprint.description + " " + finding.summary))\""
      if isNew {
        out +=
          ">\n      <failure message=\"new \(finding.kind.rawValue) not in the baseline\">\(xmlEscaped(finding.summary))</failure>\n    </testcase>\n"
      } else {
        out += "/>\n"
      }
    }
    out += "  </testsuite>\n</testsuites>\n"
    return out
  }

  /// Markdown for CI step summaries: new findings, then accepted ones, leaks and survivors before
  /// cycles.
  ///
  /// - Parameters:
  ///   - acceptCommand: how the reader updates the baseline, if they can; said when there are new
  ///     or fixed findings.
  ///   - names: how to write Swift names; by default readable (``nameStyle``).
  public func renderMarkdown(acceptCommand: String? = nil, names: NameStyle? = nil) -> String {
    renderMarkdown(acceptCommand: acceptCommand, names: names, remarks: [:], footer: nil)
  }

  /// Markdown for CI step summaries (see ``renderMarkdown(acceptCommand:names:)``), with a remark
  /// after the summary of the findings `remarks` names (`leaked: leak 387510702306f2fb`), and
  /// `footer` as a paragraph after the table.
  package func renderMarkdown(acceptCommand: String?, names: NameStyle?, remarks: [Fingerprint: String], footer: String?) -> String {
    let names = names ?? nameStyle
    let verdict =
      !newFindings.isEmpty
      ? count(newFindings.count, "new finding") : uncheckedProcesses.isEmpty ? "passed" : "incomplete"
    var out = "## Leak gate: \(verdict)\n\n"
    for sentence in uncheckedProcesses { out += "**Not checked:** \(markdownEscaped(sentence))\n\n" }
    if let note = names.homeModuleNote, !newFindings.isEmpty || !acceptedFindings.isEmpty { out += note + "\n\n" }
    func row(_ state: String, _ finding: HeapFinding) -> String {
      let remarked = [remarks[finding.fingerprint], finding.isThroughTestCode ? "through test code" : nil].compactMap { $0 }
      let remark = remarked.isEmpty ? "" : " (\(remarked.joined(separator: "; ")))"
      return
        "| \(state) | \(finding.kind.rawValue) | `\(finding.fingerprint)` | \(markdownEscaped(names.summary(of: finding) + remark)) |\n"
    }
    if !newFindings.isEmpty || !acceptedFindings.isEmpty {
      out += "| | kind | fingerprint | finding |\n| --- | --- | --- | --- |\n"
      for finding in HeapFinding.inReadingOrder(newFindings) { out += row("new", finding) }
      for finding in HeapFinding.inReadingOrder(acceptedFindings) { out += row("accepted", finding) }
    }
    if let footer { out += "\n\(markdownEscaped(footer))\n" }
    if !fixedFingerprints.isEmpty { out += "\nFixed (no longer found): \(fixedFingerprints.map { "`\($0)`" }.joined(separator: ", "))\n" }
    if let acceptCommand, !newFindings.isEmpty || !fixedFingerprints.isEmpty {
      out += "\nUpdate the baseline with `\(acceptCommand)`.\n"
    }
    return out
  }
}
