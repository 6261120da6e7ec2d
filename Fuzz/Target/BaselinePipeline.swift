/// Feeds bytes to `Baseline(jsonBytes:)` and, when they parse, checks the round trip through
/// `jsonBytes()`, that every accepted key is a fingerprint as findings spell it, and renders a
/// gate outcome against the baseline.
struct BaselinePipeline {
  func run(_ bytes: [UInt8]) {
    let baseline: Baseline
    do {
      baseline = try Baseline(jsonBytes: bytes)
    } catch {
      _ = error.description
      return
    }
    let written = baseline.jsonBytes()
    do {
      let reread = try Baseline(jsonBytes: written)
      fuzzCheck(reread == baseline, "the baseline read back differs")
      fuzzCheck(reread.jsonBytes() == written, "writing the baseline read back gives different bytes")
    } catch {
      fuzzCheck(false, "the baseline as written does not read back: \(error)")
    }
    for key in baseline.accepted.keys {
      fuzzCheck(Fingerprint(key)?.description == key, "the baseline accepts \"\(key)\", which no finding's fingerprint can match")
    }
    let outcome = GateOutcome(findings: [], baseline: baseline)
    _ = outcome.renderText(baseline: "baseline.json", acceptCommand: "accept")
    fuzzCheck(isOneJSONValue(outcome.renderJSON(exitStatus: 4)), "the gate's JSON is not JSON")
    fuzzCheck(isOneJSONValue(outcome.renderSARIF(toolVersion: "fuzz")), "SARIF is not JSON")
    fuzzCheck(isWellFormedXML(outcome.renderJUnit()), "JUnit XML is not well-formed")
    fuzzCheck(markdownTableHasRows(outcome.renderMarkdown(acceptCommand: "accept"), 0), "the Markdown table has rows")
  }
}
