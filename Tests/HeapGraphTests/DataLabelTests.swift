import HeapGraph
import LeakTestSupport
import XCTest

/// Dictionary keys' text is data: reports made to be shared and every fingerprint elide it.
final class DataLabelTests: XCTestCase {
  func testRedacted_elidesQuotedKeysOnly() {
    XCTAssertEqual(DataLabel.redacted(#"pending["https://example.com/a?session=4242"]"#), "pending[…]")
    XCTAssertEqual(DataLabel.redacted(#"byName["a \"quoted\" ] name"].node"#), "byName[…].node")
    XCTAssertEqual(DataLabel.redacted(#"a["k"].b["j"] x"#), "a[…].b[…] x")
    XCTAssertEqual(DataLabel.redacted(#"path["C:\\"]"#), "path[…]", "an escaped backslash before the closing quote")
    for kept in [
      "pets[0]", "cache[42]", "table[0x7f3a10]", "values[value]", "members[element].node", #"open["never closed"#, "capture #0: Feed",
    ] {
      XCTAssertEqual(DataLabel.redacted(kept), kept)
    }
  }

  func testFingerprint_ofACycle_doesNotDependOnTheKeysText() {
    func cycle(key: String) -> RetainCycle? {
      let heap = TestHeap("Cache#1.pending[\"\(key)\"] -> Request#1; Request#1.owner -> Cache#1")
      return HeapAnalysis(graph: heap.graph).cycles.cycles.first
    }
    let first = cycle(key: "https://example.com/session=1")
    let second = cycle(key: "https://example.com/session=2")
    XCTAssertNotNil(first)
    XCTAssertEqual(first?.fingerprint, second?.fingerprint)
    XCTAssertNotEqual(first?.elements.map(\.reference), second?.elements.map(\.reference), "the labels themselves differ")
  }

  func testWithDataRedacted_changesOnlyTheKeysText() {
    let heap = TestHeap(
      #"App.cache -> Cache#1; Cache#1.pending["secret-token"] -> Request#1; Cache#1.pending["other"] -> Request#2; Request#1.owner -> Cache#1"#,
      roots: ["App"])
    let redacted = heap.snapshot.withDataRedacted()
    XCTAssertEqual(redacted.objectCount, heap.snapshot.objectCount)
    XCTAssertEqual(redacted.references.map(\.label), heap.snapshot.references.map { $0.label.map(DataLabel.redacted) })
    XCTAssertFalse(redacted.references.contains { $0.label?.contains("secret") ?? false })
    XCTAssertEqual(
      HeapAnalysis(graph: ObjectGraph(redacted)).cycles.cycles.map(\.fingerprint),
      HeapAnalysis(graph: heap.graph).cycles.cycles.map(\.fingerprint))
  }
}
