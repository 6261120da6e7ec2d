import Foundation
import PackagePlugin

/// `swift package leak-check`: runs the package's tests under `leak-detector run` and prints
/// its report, in any package that depends on this one.
///
/// It asks SwiftPM to build `leak-detector` and its agent (in release, into the package's
/// scratch path), then runs `leak-detector run -- swift test --ignore-lock` in the package's
/// directory. Options before `--` are the plugin's (`-c`/`--configuration`, `--scratch-path`,
/// `--no-baseline`) and `run`'s (`--baseline`, `--update-baseline`, `--format`, `--output`,
/// `--snapshot`, `--suppressions`…); arguments after `--` go to `swift test` (`--filter`…).
/// `Baselines/leaks.json`, when the package has one, gates the run.
///
///     $ swift package leak-check
///     Building leak-detector and its agent (release)…
///     Testing in debug (the default; swift package leak-check -c release for release): leak-detector run -- swift test --ignore-lock
///     …the tests' own output…
///     Leaks: 2 objects in 1 group
///     Names from Kennel are written without their module.
///       1) 1 × Dog.owner → Owner.dogs[0] → Dog  (2 objects, 104 bytes)
///          in test KennelTests.adoptingADog()
///          - Dog.owner  allocated at KennelTests.adoptingADog() (async) (KennelTests.swift:6)
///     error: leak-detector run exited with 2: leaks found (with a baseline: leaks it does not accept)
///
/// SwiftPM ends `swift package` with status 1 whenever a plugin fails, so the plugin's last line
/// gives `run`'s own status (2 for leaks, 4 and 5 with a baseline); SwiftPM's error line repeats it.
///
/// SwiftPM gives a command plugin the arguments written after its verb, the package, a work
/// directory and the tools, but not the configuration or scratch path `swift package` was given
/// (`swift package -c release leak-check` passes no argument): the configuration is the
/// plugin's own `-c`, and the tests build where `swift test` builds by default, the package's
/// `.build`, unless `--scratch-path` names another place.
///
/// Why `swift test`, in the package's `.build`, with `--ignore-lock`:
/// - `swift test` runs the tests as they always run: its `--filter`, `--skip`, `--parallel` and
///   `--xunit-output`, XCTest then Swift Testing, and the processes `run` checks are the test
///   bundle's (`KennelPackageTests.xctest`, once with `--testing-library swift-testing`), whose
///   tests the report names. Building the tests through `packageManager.build(.all(includingTests:
///   true), …)` and starting the bundle directly would need all of that again: `builtArtifacts`
///   lists no test bundle, and `packageManager.test` runs XCTest alone, a process per test,
///   dropping their output.
/// - The package's `.build` holds what `swift build` and `swift test` built already. A scratch
///   path of the plugin's own would build the package and its dependencies once more.
/// - The plugin builds nothing in the tests' configuration itself (but with `-c release`, where
///   the tool is built): after a build the plugin asks for, the next `swift test` in that
///   configuration may take up the build plan SwiftPM made for it, and build every product of
///   this package in that configuration too; in debug, that is the tool and its agent built a
///   second time, minutes on a small machine. Hence no `.inherit` build to learn the
///   configuration `swift package` was given.
/// - `--ignore-lock`: the `swift package` that runs the plugin holds the lock on its scratch path
///   until the plugin ends, so `swift test` would wait for it forever. That process builds only
///   what the plugin asks for, and the plugin asks for nothing while the tests run; every other
///   SwiftPM process is still kept out, since `swift package` holds the lock. `swift test` says
///   that it ignores the lock.
@main
struct LeakCheck: CommandPlugin {
  func performCommand(context: PluginContext, arguments: [String]) async throws {
    let request = try LeakCheckRequest(arguments: arguments, packageDirectory: context.package.directoryURL)
    if request.wantsHelp {
      print(LeakCheckRequest.help)
      return
    }
    let tool = try buildTool(packageManager: packageManager)
    let swift = try context.tool(named: "swift").url
    let named = request.configuration == nil ? " (the default; swift package leak-check -c release for release)" : ""
    FileHandle.standardError.write(
      Data(
        "Testing in \(request.testConfiguration)\(named): leak-detector run -- \(request.testCommand(swift: "swift").joined(separator: " "))\n"
          .utf8))
    let status = try LeakCheckProcess.run([tool.path] + request.runArguments(swift: swift.path), in: context.package.directoryURL)
    if status != 0 {
      Diagnostics.error("leak-detector run exited with \(status): \(request.meaning(ofStatus: status))")
      exit(status)
    }
  }

  /// Builds `leak-detector`, `libLeakDetectorAgent.so` and its loader `libLeakDetectorPreload.so`
  /// in release into the package's scratch path, side by side (the command finds its agent next
  /// to itself), and returns the tool, as SwiftPM says where it went.
  private func buildTool(packageManager: PackageManager) throws -> URL {
    FileHandle.standardError.write(Data("Building leak-detector and its agent (release)…\n".utf8))
    var tool: URL?
    for product in ["leak-detector", "LeakDetectorAgent", "LeakDetectorPreload"] {
      let result = try packageManager.build(.product(product), parameters: .init(configuration: .release, logging: .concise))
      guard result.succeeded else {
        print(result.logText)
        let linksMissing = ["-ldw", "-lunwind", "-lelf", "-lz"].contains { result.logText.contains($0) }
        throw LeakCheckFailure(
          "building \(product) failed (its log is above)"
            + (linksMissing
              ? "; it links libdw, libunwind and zlib: install libdw-dev, libunwind-dev and zlib1g-dev "
                + "(.build/checkouts/swift-leak-detector/Scripts/bootstrap.sh does)" : ""))
      }
      if let executable = result.builtArtifacts.first(where: { $0.kind == .executable && $0.url.lastPathComponent == product }) {
        tool = executable.url
      }
    }
    guard let tool else { throw LeakCheckFailure("the build of leak-detector produced no executable") }
    return tool
  }
}
