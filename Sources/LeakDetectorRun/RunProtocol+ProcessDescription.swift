import HeapGraph

extension RunProtocol {
  /// A checked process as its snapshots and the report name it: its command line, then its id.
  ///
  /// ```text
  /// PetsPackageTests.xctest --testing-library swift-testing (pid 4242)
  /// ```
  ///
  /// The agent writes it into each snapshot's `metadata.process`, for people to read; the
  /// command reads the process's id and command line from the snapshot's own fields.
  package struct ProcessDescription: Sendable, Hashable, CustomStringConvertible {
    /// The longest command line kept; a longer one is cut and ends with `…`.
    package static let maxCommandLineLength = 200

    /// The executable's file name and the arguments, separated by spaces.
    package var commandLine: String
    package var processID: Int32

    /// The description of the process started with `arguments` (the executable's path first).
    /// SwiftPM passes `swift test`'s own arguments on to Swift Testing's runner; where the tests
    /// were built (`--scratch-path DIR`) and `--ignore-lock`, which `swift package leak-check`
    /// adds, say nothing about the tests and are left out.
    package init(arguments: [String], processID: Int32) {
      var arguments = Self.withoutBuildLocation(arguments)
      if let first = arguments.first { arguments[0] = String(first.split(separator: "/").last ?? "") }
      let commandLine = arguments.joined(separator: " ")
      self.commandLine =
        commandLine.count > Self.maxCommandLineLength ? String(commandLine.prefix(Self.maxCommandLineLength)) + "…" : commandLine
      self.processID = processID
    }

    /// `arguments` without `--scratch-path DIR` and `--ignore-lock`.
    private static func withoutBuildLocation(_ arguments: [String]) -> [String] {
      var kept: [String] = []
      var skipsNext = false
      for argument in arguments {
        if skipsNext {
          skipsNext = false
        } else if argument == "--scratch-path" {
          skipsNext = true
        } else if argument != "--ignore-lock" && !argument.hasPrefix("--scratch-path=") {
          kept.append(argument)
        }
      }
      return kept
    }

    /// `leaky (pid 4242)`.
    package var description: String { "\(commandLine) (pid \(processID))" }

    /// The executable's file name.
    package var program: String { String(commandLine.split(separator: " ").first ?? "") }
  }
}
