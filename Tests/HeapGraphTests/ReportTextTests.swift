import HeapGraph
import LeakTestSupport
import XCTest

extension ReportText {
  /// The report with each role written around what it covers, `<heading>Leaks: …</heading>`,
  /// for golden files of what a terminal colours.
  var markedUp: String {
    func marked(_ text: String, _ role: Role?) -> String { role.map { "<\($0)>\(text)</\($0)>" } ?? text }
    return lines.map { line in
      String(repeating: " ", count: line.indent)
        + (line.role.map { marked(line.text, $0) } ?? line.spans.map { marked($0.text, $0.role) }.joined()) + "\n"
    }.joined()
  }
}

/// The lines of text reports and their roles: what the CLI colours by.
final class ReportTextTests: XCTestCase {
  func testDescription_indentsAndEndsEveryLine_blankLinesHaveNoRole() {
    var text = ReportText()
    text.append("Leaks: 2 objects in 1 group", as: .heading)
    text.append([.itemNumber(1), " 1 × Cache"], indent: 2)
    text.append("", as: .note)
    text.append("fingerprint 387510702306f2fb", as: .detail, indent: 5)
    XCTAssertEqual(text.description, "Leaks: 2 objects in 1 group\n  1) 1 × Cache\n\n     fingerprint 387510702306f2fb\n")
    XCTAssertEqual(text.lines.map(\.role), [.heading, nil, nil, .detail])
    XCTAssertEqual(ReportText().description, "")
  }

  func testFrame_marksTheSourceLocationOnly_inEitherNameStyle() {
    let frame = StackFrame(symbol: "App.Feed.load() -> ()", file: "/ci/Sources/App/Feed.swift", line: 12)
    let readable: [ReportText.Span] = .frame(frame, names: .readable(forTypeNames: ["App.Feed"]))
    XCTAssertEqual(readable, ["Feed.load() (", .location("Feed.swift:12"), ")"])
    let full: [ReportText.Span] = .frame(frame, names: .full)
    XCTAssertEqual(full, ["App.Feed.load() -> () (", .location("Feed.swift:12"), ")"])
    let generated = StackFrame(symbol: "App.thunk()", file: "<compiler-generated>", line: 0)
    XCTAssertEqual([ReportText.Span].frame(generated, names: .full), ["App.thunk()"])
  }
}
