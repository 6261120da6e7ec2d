import HeapGraph
import XCTest

/// The shared Swift runtime (`libswiftCore.so`) this test process mapped, as `/proc/self/maps`
/// names it: the toolchain's (`/opt/swift/usr/lib/swift/linux/libswiftCore.so` on the project's
/// machines), found without naming a directory of the machine.
public func loadedSwiftRuntimePath() throws -> String {
  let maps = String(decoding: try FileBytes.read("/proc/self/maps"), as: UTF8.self)
  let files = ProcessMapping.mappings(inMaps: maps).lazy.filter { !$0.isDeletedFile }.compactMap(\.filePath)
  return try XCTUnwrap(files.first { $0.hasSuffix("/libswiftCore.so") }, "the tests run on no shared libswiftCore.so")
}
