import Foundation
import LeakTestSupport
import XCTest

/// Shell completions: the script the tool generates completes its commands and option values in
/// a real bash, and the documented install command puts each shell's script where it looks.
final class CompletionTests: XCTestCase {
  /// What bash offers for `words` (the last one being completed), with the tool's script loaded.
  private func bashCompletions(_ words: [String], script: String) throws -> [String] {
    let quoted = words.map { "'\($0)'" }.joined(separator: " ")
    let program = """
      source '\(script)'
      COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1)
      COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
      _leak-detector leak-detector "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
      printf '%s\\n' "${COMPREPLY[@]}"
      """
    let result = try BuiltProgram.tool("bash").run(["-c", program])
    XCTAssertEqual(result.status, 0, result.standardError)
    return result.standardOutput.split(separator: "\n").map(String.init)
  }

  func testBashCompletion_commandsAndFormatValues() throws {
    let script = NSTemporaryDirectory() + "leak-detector-\(UUID().uuidString).bash"
    defer { try? FileManager.default.removeItem(atPath: script) }
    let generated = try BuiltProgram("leak-detector").run(["--generate-completion-script", "bash"])
    XCTAssertEqual(generated.status, 0, generated.standardError)
    try generated.standardOutput.write(toFile: script, atomically: true, encoding: .utf8)

    XCTAssertEqual(try bashCompletions(["leak-detector", "an"], script: script), ["analyze"])
    XCTAssertEqual(
      Set(try bashCompletions(["leak-detector", ""], script: script)),
      ["analyze", "capture", "convert", "diff", "gate", "growth", "run", "strip", "help", "--help", "-h", "--version"])
    XCTAssertEqual(try bashCompletions(["leak-detector", "analyze", "x.json", "--format", "h"], script: script), ["html"])
    XCTAssertEqual(try bashCompletions(["leak-detector", "convert", "x.json", "--to", ""], script: script), ["json", "binary", "pprof"])
    XCTAssertEqual(
      try bashCompletions(["leak-detector", "gate", "x.json", "--layout", ""], script: script), ["auto", "graphviz", "built-in"])
  }

  func testInstallCompletions_writesEachShellsFile() throws {
    let home = NSTemporaryDirectory() + "home-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: home) }
    let root = URL(fileURLWithPath: directory()).deletingLastPathComponent().deletingLastPathComponent().path
    let tool = try BuiltProgram("leak-detector").path
    let result = try BuiltProgram.tool("env").run([
      "HOME=\(home)", "XDG_DATA_HOME=", "XDG_CONFIG_HOME=", "LEAK_DETECTOR=\(tool)", root + "/Scripts/install-completions", "bash", "zsh",
      "fish",
    ])
    XCTAssertEqual(result.status, 0, result.standardError)
    for (file, marker) in [
      ("/.local/share/bash-completion/completions/leak-detector", "complete -o filenames -F _leak-detector leak-detector"),
      ("/.zfunc/_leak-detector", "#compdef leak-detector"), ("/.config/fish/completions/leak-detector.fish", "complete -c 'leak-detector'"),
    ] {
      let text = try String(contentsOfFile: home + file, encoding: .utf8)
      XCTAssertTrue(text.contains(marker), "\(file):\n\(text.prefix(300))")
      XCTAssertTrue(text.contains("analyze") && text.contains("html"), file)
    }
  }
}
