import Foundation
import LeakTestSupport
import ProcessImage
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// `ProcessImage.read(coreFile:binaryDirectories:)` of cores of the running fixture, gdb's
/// (`gcore`) and the kernel's: the same memory and threads as the process had, the mapped files'
/// bytes from the files (found again after the binary moved), and bad input refused in plain words.
final class CoreFileTests: XCTestCase {
  private var directory = ""
  private var executable = ""

  override func setUpWithError() throws {
    directory = try makeTemporaryDirectory(prefix: "process-image-core")
    executable = try ThreadedTarget.compile(into: directory)
  }

  func testGcore_holdsTheProcessesMemoryThreadsAndFiles() throws {
    let target = try ThreadedTarget.start(executable: executable)
    let core = try gcore(target)
    let threadIDs = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(target.processID)/task").compactMap { Int32($0) }
    XCTAssertTrue(ProcessImage.isCoreFile(core))

    let image = try ProcessImage.read(coreFile: core)

    XCTAssertEqual(image.origin, .coreFile(core))
    XCTAssertEqual(image.processID, target.processID)
    XCTAssertNil(image.pauseDuration)
    XCTAssertEqual(image.executablePath, executable)
    XCTAssertEqual(image.commandLine, [executable])
    XCTAssertEqual(Set(image.threads.map(\.threadID)), Set(threadIDs))
    XCTAssertEqual(image.threads.count, 4)
    XCTAssertEqual(image.threads.first?.threadID, target.processID, "the main thread first")
    try assertHoldsTheFixturesState(image, target)
    XCTAssertEqual(image.diagnostics, [], "every mapped file was found")

    // The code of libc, which gcore leaves out, from the file itself.
    let libcCode = image.segments.filter { ($0.path ?? "").contains("libc.so") && $0.isExecutable }
    XCTAssertEqual(libcCode.count, 1)
    for segment in libcCode {
      let contents = try XCTUnwrap(segment.contents, "\(segment)")
      let file = try XCTUnwrap(FileHandle(forReadingAtPath: segment.path!))
      try file.seek(toOffset: segment.fileOffset)
      let expected = [UInt8](try XCTUnwrap(try file.read(upToCount: contents.count)))
      XCTAssertTrue(expected == [UInt8](contents), "\(segment.path!) at \(segment.fileOffset) differs from the file")
    }
  }

  func testGcore_ofAMovedBinary_findsItInTheBinaryDirectories_andSaysWhatIsMissing() throws {
    let target = try ThreadedTarget.start(executable: executable)
    let core = try gcore(target)
    let moved = try makeTemporaryDirectory(prefix: "process-image-binaries")
    try FileManager.default.copyItem(atPath: executable, toPath: "\(moved)/threaded-target")
    try FileManager.default.removeItem(atPath: executable)

    let found = try ProcessImage.read(coreFile: core, binaryDirectories: [moved])
    XCTAssertEqual(found.diagnostics, [])
    try assertHoldsTheFixturesState(found, target)

    let missing = try ProcessImage.read(coreFile: core)
    XCTAssertNil(missing.segment(containing: target.textAddress)?.contents, "the read-only text came from the binary")
    XCTAssertEqual(missing.readWord(at: target.globalAddress), ThreadedTarget.globalValue, "writable data is in the core")
    let diagnostic = missing.diagnostics.first { $0.contains(executable) }
    XCTAssertTrue(diagnostic?.contains("is missing") ?? false, "\(missing.diagnostics)")
    XCTAssertTrue(diagnostic?.contains("binaryDirectories") ?? false, "\(missing.diagnostics)")

    // Another program of the same name is not the binary the process ran.
    let impostors = try makeTemporaryDirectory(prefix: "process-image-impostor")
    try FileManager.default.copyItem(atPath: "/bin/true", toPath: "\(impostors)/threaded-target")
    let wrong = try ProcessImage.read(coreFile: core, binaryDirectories: [impostors])
    XCTAssertNil(wrong.segment(containing: target.textAddress)?.contents)
    XCTAssertTrue(wrong.diagnostics.contains { $0.contains("build id differs") }, "\(wrong.diagnostics)")
  }

  func testKernelCore_holdsTheProcessesMemoryThreadsAndFiles() throws {
    let pattern = ((try? String(contentsOfFile: "/proc/sys/kernel/core_pattern", encoding: .utf8)) ?? "|")
      .trimmingCharacters(in: .newlines)
    let workingDirectory = try makeTemporaryDirectory(prefix: "process-image-kernel-core")
    // Only read here: the pattern is the machine's, shared with whatever else runs on it.
    guard let expectedCore = Self.corePath(pattern: pattern, processID: 0, name: "", directory: workingDirectory) else {
      throw XCTSkip("the kernel's core_pattern (\(pattern)) hands cores to a program or names them with more than %p and %e")
    }
    _ = expectedCore
    let target = try ThreadedTarget.start(executable: executable, arguments: ["--enable-core"], directory: workingDirectory)
    XCTAssertTrue(target.isReady)
    let threadIDs = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(target.processID)/task").compactMap { Int32($0) }
    let core = try XCTUnwrap(
      Self.corePath(pattern: pattern, processID: target.processID, name: "threaded-target", directory: workingDirectory))
    let status = target.end(with: SIGQUIT)
    XCTAssertTrue(status & 0x80 != 0, "no core was dumped (status \(status))")
    addTeardownBlock { try? FileManager.default.removeItem(atPath: core) }
    XCTAssertTrue(FileManager.default.fileExists(atPath: core), "no core at \(core)")

    let image = try ProcessImage.read(coreFile: core)

    XCTAssertEqual(image.processID, target.processID)
    XCTAssertEqual(image.executablePath, executable)
    XCTAssertEqual(Set(image.threads.map(\.threadID)), Set(threadIDs))
    XCTAssertEqual(image.threads.first?.threadID, target.processID)
    try assertHoldsTheFixturesState(image, target)
  }

  func testBadInput_failsInPlainWords() throws {
    let text = "\(directory)/notes.txt"
    try "not a core".write(toFile: text, atomically: true, encoding: .utf8)
    assertFails(text, .notACoreFile, "\(text): not an ELF core file (no ELF magic)")
    let empty = "\(directory)/empty"
    XCTAssertTrue(FileManager.default.createFile(atPath: empty, contents: Data()))
    assertFails(empty, .notACoreFile, "\(empty): not an ELF core file (it is empty)")
    assertFails(executable, .notACoreFile, "\(executable): not an ELF core file (ELF type is DYN)")
    assertFails("\(directory)/absent", .unreadableFile, "\(directory)/absent: no such file")
    XCTAssertFalse(ProcessImage.isCoreFile(executable))
    XCTAssertFalse(ProcessImage.isCoreFile(text))
  }

  func testTruncatedCores_failInPlainWords() throws {
    let target = try ThreadedTarget.start(executable: executable)
    let core = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try gcore(target))))
    let programHeaders = 64 + 56 * 3
    // gdb writes section headers after the segments; a cut there loses nothing this reads.
    let segmentsEnd = Self.endOfSegments(core)
    for length in [10, 63, 64 + 10, programHeaders, segmentsEnd / 3, segmentsEnd / 2, segmentsEnd - 1] {
      let cut = "\(directory)/cut-\(length)"
      XCTAssertTrue(FileManager.default.createFile(atPath: cut, contents: Data(core.prefix(length))))
      XCTAssertThrowsError(try ProcessImage.read(coreFile: cut), "\(length) bytes") { error in
        let failure = error as? ProcessImageFailure
        XCTAssertEqual(failure?.kind, .truncated, "\(error)")
        XCTAssertTrue(failure?.description.hasPrefix("\(cut): truncated: ") ?? false, "\(error)")
      }
    }
    // A note whose size runs past its segment: the notes after it are left out, with a diagnostic.
    var lying = core
    let notes = Self.noteSegmentOffset(lying)
    lying.replaceSubrange((notes + 4)..<(notes + 8), with: [0xff, 0xff, 0xff, 0x7f])
    let lyingPath = "\(directory)/lying-note"
    XCTAssertTrue(FileManager.default.createFile(atPath: lyingPath, contents: Data(lying)))
    let image = try ProcessImage.read(coreFile: lyingPath)
    XCTAssertTrue(image.diagnostics.contains { $0.contains("runs past the end of its segment") }, "\(image.diagnostics)")
  }

  // MARK: - Helpers

  /// The fixture's pattern, global and read-only text at the addresses it printed, and every
  /// thread's stack pointer and instruction pointer in segments with contents.
  private func assertHoldsTheFixturesState(_ image: ProcessImage, _ target: ThreadedTarget, line: UInt = #line) throws {
    var pattern = [UInt8](repeating: 0, count: 64)
    XCTAssertEqual(pattern.withUnsafeMutableBytes { image.read(into: $0, at: target.bufferAddress) }, 64, line: line)
    XCTAssertEqual(pattern, ThreadedTarget.pattern, line: line)
    XCTAssertEqual(image.readWord(at: target.globalAddress), ThreadedTarget.globalValue, line: line)
    var text = [UInt8](repeating: 0, count: ThreadedTarget.text.utf8.count)
    XCTAssertEqual(text.withUnsafeMutableBytes { image.read(into: $0, at: target.textAddress) }, text.count, line: line)
    XCTAssertEqual(String(decoding: text, as: UTF8.self), ThreadedTarget.text, line: line)
    for (earlier, later) in zip(image.segments, image.segments.dropFirst()) {
      XCTAssertLessThanOrEqual(earlier.end, later.start, "sorted and not overlapping", line: line)
    }
    for thread in image.threads {
      XCTAssertNotNil(image.readWord(at: thread.stackPointer), "thread \(thread.threadID)'s stack", line: line)
      XCTAssertEqual(image.segment(containing: thread.instructionPointer)?.isExecutable, true, "thread \(thread.threadID)", line: line)
      XCTAssertNotNil(image.segment(containing: thread.instructionPointer)?.contents, "thread \(thread.threadID)", line: line)
      XCTAssertNotEqual(thread.fsBase, 0, line: line)
    }
  }

  /// Where the kernel writes the core of process `processID` named `name` (its `comm`) whose
  /// working directory is `directory`, by the `core_pattern` `pattern`: `nil` when the pattern
  /// pipes cores to a program or uses specifiers other than `%p`, `%e` and `%%`.
  static func corePath(pattern: String, processID: Int32, name: String, directory: String) -> String? {
    guard !pattern.hasPrefix("|") else { return nil }
    var path = ""
    var specifier = false
    var namesProcess = false
    for character in pattern {
      if specifier {
        switch character {
        case "p":
          path += String(processID)
          namesProcess = true
        case "e": path += name
        case "%": path += "%"
        default: return nil
        }
        specifier = false
      } else if character == "%" {
        specifier = true
      } else {
        path.append(character)
      }
    }
    let usesProcessID = (try? String(contentsOfFile: "/proc/sys/kernel/core_uses_pid", encoding: .utf8))?.hasPrefix("1") ?? false
    if usesProcessID && !namesProcess { path += ".\(processID)" }
    return path.hasPrefix("/") ? path : "\(directory)/\(path)"
  }

  /// A core of `target` by `gcore`, in the test's directory.
  private func gcore(_ target: ThreadedTarget) throws -> String {
    let tool = try ExternalTool(
      "gcore",
      advice: "the core file tests dump the fixture with gdb's gcore; install Debian's gdb (Scripts/bootstrap.sh --tests installs it)")
    let prefix = "\(directory)/gcore"
    let run = try tool.run(["-o", prefix, String(target.processID)])
    let core = "\(prefix).\(target.processID)"
    guard run.status == 0, FileManager.default.fileExists(atPath: core) else {
      throw ThreadedTarget.Failure("gcore -o \(prefix) \(target.processID) exited with \(run.status): \(run.error)")
    }
    return core
  }

  private func assertFails(_ path: String, _ kind: ProcessImageFailure.Kind, _ message: String, line: UInt = #line) {
    XCTAssertThrowsError(try ProcessImage.read(coreFile: path), line: line) { error in
      XCTAssertEqual(error as? ProcessImageFailure, ProcessImageFailure(kind, message), line: line)
    }
  }

  /// The file offset of the first `PT_NOTE` segment of a core's bytes.
  private static func noteSegmentOffset(_ core: [UInt8]) -> Int {
    programHeaders(core).first { $0.type == 4 }?.offset ?? 0
  }

  /// Where the last segment of a core's bytes ends.
  private static func endOfSegments(_ core: [UInt8]) -> Int {
    programHeaders(core).map { $0.offset + $0.size }.max() ?? 0
  }

  private static func programHeaders(_ core: [UInt8]) -> [(type: UInt32, offset: Int, size: Int)] {
    func word<Value: FixedWidthInteger>(_ offset: Int, _: Value.Type) -> Value {
      core[offset..<(offset + MemoryLayout<Value>.size)].reversed().reduce(0) { $0 << 8 | Value($1) }
    }
    let headers = Int(word(32, UInt64.self))
    return (0..<Int(word(56, UInt16.self))).map { index in
      let header = headers + index * 56
      return (word(header, UInt32.self), Int(word(header + 8, UInt64.self)), Int(word(header + 32, UInt64.self)))
    }
  }
}
