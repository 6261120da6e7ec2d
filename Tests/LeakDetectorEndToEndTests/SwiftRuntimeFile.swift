import Foundation
import LeakTestSupport
import XCTest

/// The shared Swift runtime (`libswiftCore.so`) the running tests loaded, as `/proc/self/maps`
/// names it, with where its GNU build id lies in the file: the toolchain's runtime, found
/// without naming a directory of the machine.
struct SwiftRuntimeFile {
  let path: String
  let bytes: Data
  /// Where the build id note's descriptor lies in ``bytes``.
  let buildIDRange: Range<Int>

  /// The runtime of this test process.
  static func loaded() throws -> SwiftRuntimeFile {
    let path = try loadedSwiftRuntimePath()
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    return SwiftRuntimeFile(path: path, bytes: bytes, buildIDRange: try XCTUnwrap(buildIDRange(in: bytes), "\(path) has no build id"))
  }

  /// The build id, in lowercase hex.
  var buildID: String { Self.hex(bytes[buildIDRange]) }

  /// The file with the first byte of its build id changed: another build to the dynamic loader's
  /// reader of notes, the same code to the program.
  func withAnotherBuildID() -> (bytes: Data, buildID: String) {
    var changed = bytes
    changed[buildIDRange.lowerBound] ^= 0xff
    return (changed, Self.hex(changed[buildIDRange]))
  }

  /// The descriptor of the first note named `GNU` of type `NT_GNU_BUILD_ID` (3) in the file's
  /// first megabyte (the notes follow the ELF headers). A search of the bytes, not the tool's
  /// reader (`CELFBuildID`): it is the expectation the CLI's and the agent's build ids are
  /// checked against, and it names where the id lies, to change it.
  private static func buildIDRange(in bytes: Data) -> Range<Int>? {
    let header: [UInt8] = [3, 0, 0, 0] + Array("GNU\0".utf8)
    let start = bytes.startIndex
    let searched = bytes.prefix(1 << 20)
    var index = start + 8
    while let found = searched[index...].firstRange(of: header) {
      let note = found.lowerBound - 8
      let nameSize = bytes[note..<note + 4].reversed().reduce(0) { $0 << 8 | Int($1) }
      let descriptorSize = bytes[note + 4..<note + 8].reversed().reduce(0) { $0 << 8 | Int($1) }
      if nameSize == 4 && descriptorSize > 0 && descriptorSize <= 64 { return found.upperBound..<found.upperBound + descriptorSize }
      index = found.upperBound
    }
    return nil
  }

  private static func hex(_ bytes: Data) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
  }
}
