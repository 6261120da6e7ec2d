import Foundation
import HeapGraph
import LeakDetectorTesting
import LeakTestSupport
import XCTest

/// The documentation's code is compiled: every Swift code block of every article in the DocC
/// catalogs is a region of ArticleSnippets.swift, verbatim; and the functions the articles show
/// do what they say.
final class ArticleSnippetTests: XCTestCase {
  private static let root = URL(fileURLWithPath: directory()).deletingLastPathComponent().deletingLastPathComponent()

  /// The regions of ArticleSnippets.swift, each without the indentation of its markers.
  private func snippets() throws -> [String] {
    let source = try String(contentsOf: URL(fileURLWithPath: directory() + "/ArticleSnippets.swift"), encoding: .utf8)
    var regions: [String] = []
    var current: (indent: Int, lines: [String])?
    for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
      let trimmed = line.drop { $0 == " " }
      if trimmed.hasPrefix("// snippet:") {
        current = (line.count - trimmed.count, [])
      } else if trimmed.hasPrefix("// end snippet"), let region = current {
        regions.append(region.lines.joined(separator: "\n"))
        current = nil
      } else if current != nil {
        current!.lines.append(String(line.dropFirst(min(current!.indent, line.prefix { $0 == " " }.count))))
      }
    }
    return regions
  }

  /// The Swift code blocks of the articles, by file name.
  private func articleBlocks() throws -> [(file: String, code: String)] {
    let sources = Self.root.appendingPathComponent("Sources")
    var blocks: [(String, String)] = []
    let enumerator = try XCTUnwrap(FileManager.default.enumerator(atPath: sources.path))
    for case let path as String in enumerator where path.contains(".docc/") && path.hasSuffix(".md") {
      let text = try String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8)
      var block: [String]?
      for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        if line == "```swift" {
          block = []
        } else if line == "```", let code = block {
          blocks.append((path, code.joined(separator: "\n")))
          block = nil
        } else if block != nil {
          block!.append(String(line))
        }
      }
    }
    return blocks.sorted { ($0.0, $0.1) < ($1.0, $1.1) }
  }

  func testEveryArticleCodeBlock_isCompiledHere() throws {
    let regions = try snippets()
    let blocks = try articleBlocks()
    XCTAssertGreaterThanOrEqual(blocks.count, 8, "the articles have their examples")
    for block in blocks {
      XCTAssertTrue(regions.contains(block.code), "\(block.file): this code block is not in ArticleSnippets.swift:\n\(block.code)")
    }
    XCTAssertEqual(regions.count, blocks.count, "every snippet is in an article")
  }

  /// The articles' functions, run: a snapshot written by the tracker is read back and reported,
  /// and gated against a baseline that accepts everything in it.
  func testArticleFunctions_captureReportAndGate() throws {
    let path = NSTemporaryDirectory() + "article-\(UUID().uuidString).json"
    defer { try? FileManager.default.removeItem(atPath: path) }
    nonisolated(unsafe) var kept: [ProfileViewModel] = []
    try captureScreenLeaks(to: path) {
      let viewModel = ProfileViewModel()
      viewModel.bind(to: ProfileView())
      kept.append(viewModel)  // leaked on purpose: the cycle stays
    }
    let report = try leakReport(ofSnapshotAt: path)
    XCTAssertTrue(report.contains("ProfileViewModel.onUpdate → closure #1 in ProfileViewModel.bind(to:)"), report)

    let analysis = HeapAnalysis(graph: ObjectGraph(try HeapSnapshot(jsonBytes: FileBytes.read(path))))
    let baselinePath = path + ".baseline.json"
    defer { try? FileManager.default.removeItem(atPath: baselinePath) }
    try FileBytes.writeAtomically(Baseline(accepting: analysis.findings, previous: nil, reasonForNew: "test").jsonBytes(), to: baselinePath)
    XCTAssertEqual(try gateVerdict(findings: analysis.findings, baselineAt: baselinePath), .passed)
    XCTAssertEqual(articleConfiguration().gracePeriod, .milliseconds(300))
    kept.forEach { $0.unbind() }
  }
}
