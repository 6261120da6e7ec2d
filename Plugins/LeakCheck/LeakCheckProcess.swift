import Foundation

/// Runs `leak-detector run` with the plugin's standard streams (an interrupt reaches its whole
/// process group: `swift package`, the plugin, the command and the tests).
enum LeakCheckProcess {
  /// Runs `command` in `directory` and returns its exit status (128 + the signal that ended it).
  static func run(_ command: [String], in directory: URL) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: command[0])
    process.arguments = Array(command.dropFirst())
    process.currentDirectoryURL = directory
    do {
      try process.run()
    } catch {
      throw LeakCheckFailure(
        "cannot start \(command[0]) (\(error.localizedDescription)); where SwiftPM sandboxes plugins, "
          + "run `swift package --disable-sandbox leak-check`")
    }
    process.waitUntilExit()
    return process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
  }
}
