import Foundation
import XCTest

/// A program of this package, built next to the running test bundle, run as a user would run it.
public struct BuiltProgram {
  /// What a run printed and how it exited.
  public struct Run {
    public var status: Int32
    public var standardOutput: String
    public var standardError: String
  }

  /// The executable's path.
  public let path: String

  /// The product `name` from the build directory of the running tests; skips the test when it
  /// was not built.
  public init(_ name: String) throws {
    let testBinary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    path = URL(fileURLWithPath: testBinary).deletingLastPathComponent().appendingPathComponent(name).path
    guard FileManager.default.isExecutableFile(atPath: path) else { throw XCTSkip("\(name) was not built at \(path)") }
  }

  /// Runs the program with `arguments` and waits for it.
  public func run(_ arguments: [String]) throws -> Run {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    // Read standard error on another thread, so that neither pipe fills up and blocks the program.
    let errorData = DataBox()
    let errorRead = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      errorData.data = error.fileHandleForReading.readDataToEndOfFile()
      errorRead.signal()
    }
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    errorRead.wait()
    process.waitUntilExit()
    return Run(
      status: process.terminationStatus, standardOutput: String(decoding: outputData, as: UTF8.self),
      standardError: String(decoding: errorData.data, as: UTF8.self))
  }
}

/// Bytes written by one thread and read by another after a semaphore.
private final class DataBox: @unchecked Sendable {
  var data = Data()
}
