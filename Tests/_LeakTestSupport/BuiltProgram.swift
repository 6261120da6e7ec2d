import Foundation
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// A program of this package, built next to the running test bundle, or of a package of its own
/// in this repository (the demo), run as a user would run it.
public struct BuiltProgram: Sendable {
  /// What a run printed and how it exited.
  public struct Run {
    public var status: Int32
    public var standardOutput: String
    public var standardError: String
  }

  /// What a run reads on standard input.
  public enum Input {
    /// Nothing: standard input is the null device, so a program that reads it sees its end at
    /// once instead of waiting on the test's own input.
    case nothing
    /// These bytes, through a pipe.
    case bytes(Data)
    /// The file (or directory) at this path, opened for reading, as a shell's `<` does.
    case file(String)
  }

  /// The executable's path.
  public let path: String

  /// The product `name` from the build directory of the running tests; fails the test when it
  /// was not built (`swift build --build-tests` builds every product of the package).
  public init(_ name: String) throws {
    let testBinary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    path = URL(fileURLWithPath: testBinary).deletingLastPathComponent().appendingPathComponent(name).path
    guard FileManager.default.isExecutableFile(atPath: path) else { throw NotBuilt(name: name, path: path) }
  }

  /// A product of this package that is missing from the build directory.
  public struct NotBuilt: Error, CustomStringConvertible {
    public var name: String
    public var path: String
    public var description: String { "\(name) was not built at \(path); run swift build --build-tests first" }
  }

  /// The product `name` of the package at `package`, a package of its own that depends on this
  /// one by path (the demo, `Examples/FeedApp`), built first as its users build it: `swift build`
  /// in that package's own `.build`, in the configuration of the running tests. In a sanitizer
  /// build of the tests it is built with the same sanitizer, in that package's `.build-asan` or
  /// `.build-tsan` (as `Scripts/sanitizers` builds this package). The first build compiles the
  /// libraries it uses again, for that package; later ones only what changed.
  public static func product(_ name: String, ofPackageAt package: String) throws -> BuiltProgram {
    #if DEBUG
      let configuration = "debug"
    #else
      let configuration = "release"
    #endif
    let swift = try tool("swift")
    var build = ["build", "--package-path", package, "-c", configuration]
    if let (sanitizer, folder) = runningSanitizer() {
      build += ["--sanitize=\(sanitizer)", "--scratch-path", "\(package)/\(folder)"]
    }
    // SwiftPM plans a build anew only when the package it builds changes, and would miss a file
    // added to or removed from this package, a dependency by path there.
    let built = try swift.run(build + ["--disable-build-manifest-caching", "--product", name])
    guard built.status == 0 else {
      throw PackageBuildFailure(
        command: "swift " + (build + ["--product", name]).joined(separator: " "), output: built.standardOutput + built.standardError
      )
    }
    let binPath = try swift.run(build + ["--show-bin-path"])
    guard binPath.status == 0, let directory = binPath.standardOutput.split(separator: "\n").last else {
      throw PackageBuildFailure(command: "swift " + (build + ["--show-bin-path"]).joined(separator: " "), output: binPath.standardError)
    }
    let program = BuiltProgram(path: "\(directory)/\(name)")
    guard FileManager.default.isExecutableFile(atPath: program.path) else { throw NotBuilt(name: name, path: program.path) }
    return program
  }

  /// The sanitizer this process was built with, and the build folder `Scripts/sanitizers` gives it.
  private static func runningSanitizer() -> (sanitizer: String, folder: String)? {
    let process = dlopen(nil, RTLD_NOW)
    if dlsym(process, "__asan_init") != nil { return ("address", ".build-asan") }
    if dlsym(process, "__tsan_init") != nil { return ("thread", ".build-tsan") }
    return nil
  }

  /// A package of this repository whose `swift build` failed.
  public struct PackageBuildFailure: Error, CustomStringConvertible {
    public var command: String
    public var output: String
    public var description: String { "\(command) failed:\n\(output)" }
  }

  /// The program `name` from `PATH`; skips the test when there is none, for the tools a
  /// contributor may not have installed (`chromium`, `dot`). `.ci/run` fails on any skip it does
  /// not expect, so these tests run in CI.
  public static func tool(_ name: String) throws -> BuiltProgram {
    let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
    guard let found = directories.map({ "\($0)/\(name)" }).first(where: FileManager.default.isExecutableFile(atPath:)) else {
      throw XCTSkip("\(name) is not on PATH")
    }
    return BuiltProgram(path: found)
  }

  private init(path: String) {
    self.path = path
  }

  /// Runs the program with `arguments` and `standardInput` (in `directory`, when given, and with
  /// `environment` added to this process's), and waits for it.
  public func run(
    _ arguments: [String], standardInput: Input = .nothing, in directory: String? = nil, environment: [String: String] = [:]
  ) throws -> Run {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    var inputPipe: Pipe?
    switch standardInput {
    case .nothing:
      process.standardInput = FileHandle.nullDevice
    case .bytes:
      signal(SIGPIPE, SIG_IGN)  // a program may exit before it reads everything
      inputPipe = Pipe()
      process.standardInput = inputPipe
    case .file(let path):
      let descriptor = open(path, O_RDONLY | O_CLOEXEC)
      guard descriptor >= 0 else { throw CocoaError(.fileReadNoPermission, userInfo: [NSFilePathErrorKey: path]) }
      process.standardInput = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }
    try process.run()
    // Write standard input and read standard error on other threads, so that no pipe fills up
    // and blocks the program.
    if case .bytes(let data) = standardInput, let inputPipe {
      let writer = inputPipe.fileHandleForWriting
      DispatchQueue.global().async {
        try? writer.write(contentsOf: data)
        try? writer.close()
      }
    }
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
