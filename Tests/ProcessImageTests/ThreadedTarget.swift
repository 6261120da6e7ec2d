import Foundation
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// A running copy of the fixture program `Fixtures/ThreadedTarget.c`: 4 threads that count, a
/// heap buffer holding ``pattern``, a global holding ``globalValue``, a read-only ``text``. It is
/// started with `posix_spawn` (not `Foundation.Process`, whose child monitoring could collect the
/// stops a capture waits for) and killed when the value goes away.
///
/// ```swift
/// let target = try ThreadedTarget.start(executable: try ThreadedTarget.compile(into: directory))
/// XCTAssertGreaterThan(try target.count(), 0)
/// ```
final class ThreadedTarget {
  /// The 64 bytes the fixture writes into its heap buffer.
  static let pattern: [UInt8] = (0..<64).map { UInt8(truncatingIfNeeded: 0xA0 ^ ($0 * 7)) }
  /// The value of its writable global.
  static let globalValue: UInt = 0x600D_F00D_CAFE_BABE
  /// Its read-only text (the bytes before the NUL).
  static let text = "process-image fixture read-only text"

  let processID: Int32
  let executable: String
  let bufferAddress: UInt
  let globalAddress: UInt
  let textAddress: UInt
  private let input: UnsafeMutablePointer<FILE>
  private let output: UnsafeMutablePointer<FILE>
  private var ended = false

  /// Compiles the fixture with `cc` into `directory`; returns the executable's path.
  static func compile(into directory: String) throws -> String {
    let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/ThreadedTarget.c").path
    let executable = "\(directory)/threaded-target"
    let compiler = Process()
    compiler.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    compiler.arguments = ["cc", "-O0", "-g", "-pthread", source, "-o", executable]
    try compiler.run()
    compiler.waitUntilExit()
    guard compiler.terminationStatus == 0 else { throw Failure("cc could not compile \(source)") }
    return executable
  }

  /// Starts `executable` with `arguments` in `directory` (this process's when `nil`) and waits
  /// for its ready line.
  static func start(executable: String, arguments: [String] = [], directory: String? = nil) throws -> ThreadedTarget {
    var toChild: [Int32] = [0, 0]
    var fromChild: [Int32] = [0, 0]
    guard makePipe(&toChild), makePipe(&fromChild) else { throw Failure("pipe failed") }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
    posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
    for descriptor in toChild + fromChild { posix_spawn_file_actions_addclose(&actions, descriptor) }
    // In another directory through a shell that changes to it and becomes the program (`exec`).
    let command = directory.map { ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", $0, executable] } ?? [executable]
    let argv = (command + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var processID: pid_t = 0
    let spawned = posix_spawn(&processID, command[0], &actions, nil, argv, environ)
    close(toChild[0])
    close(fromChild[1])
    guard spawned == 0 else { throw Failure("posix_spawn \(executable): \(String(cString: strerror(spawned)))") }
    let target = ThreadedTarget(
      processID: processID, executable: executable, input: fdopen(toChild[1], "w"), output: fdopen(fromChild[0], "r"))
    return target
  }

  private init(processID: Int32, executable: String, input: UnsafeMutablePointer<FILE>, output: UnsafeMutablePointer<FILE>) {
    self.processID = processID
    self.executable = executable
    self.input = input
    self.output = output
    let ready = Self.readLine(output) ?? ""
    let fields = Dictionary(
      ready.split(separator: " ").compactMap { field -> (String, UInt)? in
        let parts = field.split(separator: "=")
        guard parts.count == 2, let value = UInt(parts[1].dropFirst(2), radix: 16) else { return nil }
        return (String(parts[0]), value)
      }, uniquingKeysWith: { $1 })
    bufferAddress = fields["buffer"] ?? 0
    globalAddress = fields["global"] ?? 0
    textAddress = fields["text"] ?? 0
  }

  deinit {
    if !ended {
      kill(processID, SIGKILL)
      var status: Int32 = 0
      waitpid(processID, &status, 0)
    }
    fclose(input)
    fclose(output)
  }

  /// Whether the ready line named every address.
  var isReady: Bool { bufferAddress != 0 && globalAddress != 0 && textAddress != 0 }

  /// The sum of its counters, which it writes when asked: that it answers shows it runs.
  func count() throws -> UInt64 {
    try counts().count
  }

  /// The sum of its counters and how many `SIGRTMIN` signals it handled.
  func counts() throws -> (count: UInt64, signals: UInt64) {
    fputs("count\n", input)
    fflush(input)
    let fields = (Self.readLine(output) ?? "").split(separator: " ")
    guard fields.count == 4, fields[0] == "count", let count = UInt64(fields[1]), let signals = UInt64(fields[3]) else {
      throw Failure("process \(processID) did not answer")
    }
    return (count, signals)
  }

  /// The `State:` line of `/proc/PID/status`, without its label: `S (sleeping)`, `t (tracing stop)`.
  var state: String {
    let status = (try? String(contentsOfFile: "/proc/\(processID)/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("State:") } ?? ""
    return line.dropFirst("State:".count).trimmingCharacters(in: .whitespaces)
  }

  /// Whether a tracer or a signal holds it stopped.
  var isStopped: Bool { state.hasPrefix("t") || state.hasPrefix("T") }

  /// Sends `signal` and waits for it to end; returns its wait status.
  func end(with signal: Int32) -> Int32 {
    kill(processID, signal)
    var status: Int32 = 0
    waitpid(processID, &status, 0)
    ended = true
    return status
  }

  private static func readLine(_ file: UnsafeMutablePointer<FILE>) -> String? {
    var line: UnsafeMutablePointer<CChar>?
    var capacity = 0
    defer { free(line) }
    guard getline(&line, &capacity, file) > 0, let line else { return nil }
    return String(cString: line).trimmingCharacters(in: .newlines)
  }

  struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
  }
}
