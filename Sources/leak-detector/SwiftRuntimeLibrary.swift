import CELFBuildID
import HeapGraph
import LeakDetectorRun

/// The shared Swift runtime this process runs on, for `--version`: `libswiftCore.so` as
/// `/proc/self/maps` names it (read by `ProcessMapping`), with its build id read from the file's
/// notes (by `cleak_build_id_of_file`, the agent's reader too).
struct SwiftRuntimeLibrary {
  var path: String
  var buildID: BuildID?

  /// The runtime this process mapped, or `nil` when it has none (the runtime is linked in).
  static func loaded() -> SwiftRuntimeLibrary? {
    guard let maps = try? FileBytes.read("/proc/self/maps") else { return nil }
    let mappings = ProcessMapping.mappings(inMaps: String(decoding: maps, as: UTF8.self))
    // A removed file's path now names another file, or none: its build id would not be the mapped one's.
    let files = mappings.lazy.filter { !$0.isDeletedFile }.compactMap(\.filePath)
    guard let path = files.first(where: { $0.hasSuffix("/libswiftCore.so") }) else { return nil }
    return SwiftRuntimeLibrary(path: path, buildID: buildID(ofFile: path))
  }

  /// The GNU build id in the note segments of the ELF file at `path`.
  private static func buildID(ofFile path: String) -> BuildID? {
    var bytes = [UInt8](repeating: 0, count: Int(CLEAK_BUILD_ID_CAPACITY))
    let length = cleak_build_id_of_file(path, &bytes, bytes.count)
    return length > 0 ? BuildID(Array(bytes.prefix(length))) : nil
  }
}
