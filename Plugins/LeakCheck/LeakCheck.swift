import Foundation
import PackagePlugin

/// `swift package leak-check`: runs the package's tests under `leak-detector run` and prints
/// its report, in any package that depends on this one.
///
/// It builds `leak-detector` and its agent from the dependency (in release, into the package's
/// own scratch path), then runs `leak-detector run -- swift test` in the package's directory.
/// Options before `--` are `run`'s (`--baseline`, `--update-baseline`, `--format`, `--output`,
/// `--snapshot`, `--suppressions`…); arguments after `--` go to `swift test` (`--filter`,
/// `-c release`…). `Baselines/leaks.json`, when the package has one, gates the run.
///
///     $ swift package leak-check
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
@main
struct LeakCheck: CommandPlugin {
  func performCommand(context: PluginContext, arguments: [String]) async throws {
    let request = LeakCheckRequest(
      arguments: arguments, packageDirectory: context.package.directoryURL, invocation: LeakCheckRequest.invocation())
    if request.wantsHelp {
      print(LeakCheckRequest.help)
      return
    }
    let tool = try buildTool(packageManager: packageManager)
    let scratchPath = LeakCheckRequest.scratchPath(pluginWorkDirectory: context.pluginWorkDirectoryURL)
    let swift = try context.tool(named: "swift").url
    let command = [tool.path] + request.runArguments(swift: swift.path, scratchPath: scratchPath)
    let status = try LeakCheckProcess.run(command, in: context.package.directoryURL)
    if status != 0 {
      Diagnostics.error("leak-detector run exited with \(status): \(request.meaning(ofStatus: status))")
      exit(status)
    }
  }

  /// Builds `leak-detector`, `libLeakDetectorAgent.so` and its loader `libLeakDetectorPreload.so`
  /// in release into the package's scratch path, side by side (the command finds its agent next
  /// to itself), and returns the tool.
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
