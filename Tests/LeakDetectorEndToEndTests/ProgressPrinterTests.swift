// The command-line tool's module can be imported for testing only where it is compiled for it:
// in debug builds. What it prints is not optimization-sensitive.
#if DEBUG
  @testable import leak_detector
  import XCTest

  /// The progress display: one line redrawn in place on a terminal, with a bar for the cycle
  /// search, erased at the end; plain lines in a log.
  final class ProgressPrinterTests: XCTestCase {
    private final class Output: @unchecked Sendable {
      var text = ""
    }

    func testTerminal_redrawsOneLineWithABarAndErasesIt() {
      let output = Output()
      let progress = ProgressPrinter(isTerminal: true, quietPeriod: .zero) { output.text += $0 }
      progress.report(.searchingComponents(completed: 62, total: 100))
      XCTAssertTrue(output.text.hasPrefix("\r\u{1B}[2Kleak-detector [0.0 s] searching 100 components for cycles "), output.text)
      XCTAssertTrue(output.text.hasSuffix(" ━━━━━━━━━━━━────────  62%"), output.text)
      XCTAssertFalse(output.text.contains("\n"), "a terminal line is redrawn, never scrolled")
      progress.report("rendering the report")
      XCTAssertFalse(output.text.contains("rendering"), "at most ten redraws a second")
      progress.finish()
      XCTAssertTrue(output.text.hasSuffix("\r\u{1B}[2K"), "the line is erased before the report")
    }

    func testLog_writesPlainLinesWithoutBars() {
      let output = Output()
      let progress = ProgressPrinter(isTerminal: false, quietPeriod: .zero) { output.text += $0 }
      progress.report(.searchingComponents(completed: 1, total: 2))
      XCTAssertEqual(output.text, "leak-detector [0.0 s] searching 2 components for cycles\n")
      progress.finish()
      XCTAssertEqual(output.text, "leak-detector [0.0 s] searching 2 components for cycles\n", "nothing to erase in a log")
    }

    func testQuietPeriod_aShortRunPrintsNothing() {
      let output = Output()
      let progress = ProgressPrinter(isTerminal: true) { output.text += $0 }
      progress.report(.findingComponents)
      progress.finish()
      XCTAssertEqual(output.text, "")
    }

    func testBar_fillsTwentyCells() {
      XCTAssertEqual(ProgressPrinter.bar(0), "────────────────────   0%")
      XCTAssertEqual(ProgressPrinter.bar(0.5), "━━━━━━━━━━──────────  50%")
      XCTAssertEqual(ProgressPrinter.bar(1), "━━━━━━━━━━━━━━━━━━━━ 100%")
    }
  }
#endif
