import Foundation
import LeakTestSupport
import XCTest

/// The fixture programs of the `leak-detector run` suites (`Fixtures/Run/NAME.swift`), compiled
/// once per suite into a temporary directory, optimized in release test runs (where objects may
/// be stack-promoted and closure contexts reshaped). swiftc comes with the toolchain that runs
/// these tests, so a missing compiler or a fixture that does not compile fails every test of the
/// suite instead of skipping it.
enum RunFixturePrograms {
  /// Why the fixture programs could not be built.
  struct BuildFailure: Error, CustomStringConvertible {
    var description: String
  }

  /// Where the fixtures' sources are.
  static let sources = LeakTestSupport.directory(of: #filePath) + "/Fixtures/Run"

  #if DEBUG
    static let optimization = ["-Onone"]
  #else
    static let optimization = ["-O"]
  #endif

  /// Compiles `names` into a new directory `<prefix>-<pid>` and returns its path.
  static func build(_ names: [String], directoryPrefix prefix: String) throws -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(getpid())").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let swiftc: BuiltProgram
    do { swiftc = try BuiltProgram.tool("swiftc") } catch { throw BuildFailure(description: "swiftc is not on PATH") }
    for name in names {
      let compile = try swiftc.run(optimization + ["-g", sources + "/\(name).swift", "-o", directory + "/" + name])
      guard compile.status == 0 else {
        throw BuildFailure(description: "the fixture program \(name).swift did not compile:\n\(compile.standardError)")
      }
    }
    return directory
  }

  /// Makes the pipe named `stop` in `directory`, which a fixture program given `directory` opens
  /// to read, and so waits on, until ``stop(in:)``.
  static func makeStopPipe(in directory: String) throws {
    guard mkfifo(directory + "/stop", 0o600) == 0 else { throw BuildFailure(description: "mkfifo \(directory)/stop failed") }
  }

  /// Lets the fixture program waiting on `directory`'s stop pipe go on: opens the pipe to write
  /// once the program has it open to read (its open returns then), and closes it. Returns whether
  /// the program was there to be stopped.
  static func stop(in directory: String) -> Bool {
    eventually(within: .seconds(60)) {
      let pipe = open(directory + "/stop", O_WRONLY | O_NONBLOCK)  // fails while no reader has it open
      if pipe >= 0 { close(pipe) }
      return pipe >= 0
    }
  }

  /// Removes the directory `built` holds, if it was built.
  static func remove(_ built: Result<String, any Error>) {
    if let directory = try? built.get() { try? FileManager.default.removeItem(atPath: directory) }
  }

  /// Skips the test in a sanitizer build: the agent then needs the sanitizer's runtime, which a
  /// program built without it does not load, so the dynamic loader refuses to preload it.
  static func skipUnderSanitizers() throws {
    let process = dlopen(nil, RTLD_NOW)
    let environment = ProcessInfo.processInfo.environment
    if dlsym(process, "__asan_init") != nil || dlsym(process, "__tsan_init") != nil || environment["ASAN_OPTIONS"] != nil
      || environment["TSAN_OPTIONS"] != nil
    {
      throw XCTSkip("the agent of a sanitizer build cannot be preloaded into programs built without the sanitizer")
    }
  }
}
