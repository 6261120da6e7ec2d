import HeapGraph
import LeakDetectorRun

#if canImport(Glibc)
  import Glibc
#endif

/// The shared Swift runtime this process runs on, for `--version`: `libswiftCore.so` as
/// `/proc/self/maps` names it (read by `ProcessMapping`), with its build id read from the file's notes.
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

  /// The GNU build id in the note segments of the 64-bit little-endian ELF file at `path`.
  private static func buildID(ofFile path: String) -> BuildID? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    func bytes(at offset: Int, count: Int) -> [UInt8]? {
      guard count > 0, count <= 1 << 20 else { return nil }
      var buffer = [UInt8](repeating: 0, count: count)
      let read = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
      return read == count ? buffer : nil
    }
    func integer(_ bytes: [UInt8], at offset: Int, size: Int) -> Int {
      (0..<size).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
    }
    guard let header = bytes(at: 0, count: 64), header.starts(with: [0x7f, 0x45, 0x4c, 0x46, 2, 1]) else { return nil }
    let headerTable = integer(header, at: 32, size: 8), headerSize = integer(header, at: 54, size: 2)
    let headerCount = integer(header, at: 56, size: 2)
    guard headerSize >= 56, let headers = bytes(at: headerTable, count: headerSize * headerCount) else { return nil }
    for index in 0..<headerCount {
      let entry = index * headerSize
      guard integer(headers, at: entry, size: 4) == 4 /* PT_NOTE */ else { continue }
      let alignment = max(4, integer(headers, at: entry + 48, size: 8))
      guard let notes = bytes(at: integer(headers, at: entry + 8, size: 8), count: integer(headers, at: entry + 32, size: 8)) else {
        continue
      }
      var offset = 0
      while offset + 12 <= notes.count {
        let nameSize = integer(notes, at: offset, size: 4), descriptorSize = integer(notes, at: offset + 4, size: 4)
        let descriptorStart = (offset + 12 + nameSize + alignment - 1) / alignment * alignment
        guard descriptorStart + descriptorSize <= notes.count else { break }
        if integer(notes, at: offset + 8, size: 4) == 3 /* NT_GNU_BUILD_ID */ && notes[(offset + 12)...].starts(with: Array("GNU\0".utf8)) {
          return BuildID(Array(notes[descriptorStart..<descriptorStart + descriptorSize]))
        }
        offset = (descriptorStart + descriptorSize + alignment - 1) / alignment * alignment
      }
    }
    return nil
  }
}
