import Foundation

/// A program the tests need from the system (`gzip`, `go`), run with bytes in and bytes out.
/// A missing one is an error that says what to install, so that a machine without it fails the
/// tests that need it instead of skipping them.
public struct ExternalTool {
  /// A tool that is not on `PATH`.
  public struct Missing: Error, CustomStringConvertible {
    public var name: String
    public var advice: String
    public var description: String { "\(name) is not on PATH: \(advice)" }
  }

  /// A run that failed, with its status and what it said.
  public struct Failed: Error, CustomStringConvertible {
    public var command: String
    public var status: Int32
    public var error: String
    public var description: String { "\(command) exited with \(status): \(error)" }
  }

  /// What a run wrote and how it exited.
  public struct Run {
    public var status: Int32
    public var output: [UInt8]
    public var error: String
    /// The standard output as text.
    public var text: String { String(decoding: output, as: UTF8.self) }
  }

  /// The executable's path.
  public let path: String

  /// The program `name` from `PATH`, or ``Missing`` with `advice` (what to install).
  public init(_ name: String, advice: String) throws {
    let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
    guard let found = directories.map({ "\($0)/\(name)" }).first(where: FileManager.default.isExecutableFile(atPath:)) else {
      throw Missing(name: name, advice: advice)
    }
    path = found
  }

  /// `go`, for `go tool pprof`.
  public static func go() throws -> ExternalTool {
    try ExternalTool(
      "go",
      advice: "the heap profile tests read profiles with `go tool pprof`; install Debian's golang-go "
        + "(Scripts/bootstrap.sh --tests installs it)")
  }

  /// Runs the tool with `arguments`, `input` on its standard input and `environment` added to
  /// this process's, and waits for it.
  public func run(_ arguments: [String], input: [UInt8] = [], environment: [String: String] = [:]) throws -> Run {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let inputPipe = Pipe()
    let outputPipe = Pipe()
    let errorPipe = Pipe()
    process.standardInput = inputPipe
    process.standardOutput = outputPipe
    process.standardError = errorPipe
    signal(SIGPIPE, SIG_IGN)  // the tool may exit before it reads everything
    try process.run()
    let writer = inputPipe.fileHandleForWriting
    DispatchQueue.global().async {
      try? writer.write(contentsOf: Data(input))
      try? writer.close()
    }
    let errorData = ErrorBytes()
    let errorRead = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      errorData.data = errorPipe.fileHandleForReading.readDataToEndOfFile()
      errorRead.signal()
    }
    let output = outputPipe.fileHandleForReading.readDataToEndOfFile()
    errorRead.wait()
    process.waitUntilExit()
    return Run(status: process.terminationStatus, output: [UInt8](output), error: String(decoding: errorData.data, as: UTF8.self))
  }

  /// `bytes` decompressed by the system's `gzip -dc`: what every gzip reader makes of them.
  public static func gunzip(_ bytes: [UInt8]) throws -> [UInt8] {
    let run = try ExternalTool("gzip", advice: "install gzip").run(["-dc"], input: bytes)
    guard run.status == 0 else { throw Failed(command: "gzip -dc", status: run.status, error: run.error) }
    return run.output
  }
}

/// Bytes written by one thread and read by another after a semaphore.
private final class ErrorBytes: @unchecked Sendable {
  var data = Data()
}
