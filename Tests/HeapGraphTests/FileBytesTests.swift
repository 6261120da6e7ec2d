import Foundation
import HeapGraph
import XCTest

/// Reads are bounded and refuse what is not a file; atomic writes never lose what was there.
final class FileBytesTests: XCTestCase {
  private var directory = ""

  override func setUpWithError() throws {
    directory = NSTemporaryDirectory() + "file-bytes-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(atPath: directory)
  }

  private func failure(_ body: () throws(FileBytes.Failure) -> Void, file: StaticString = #filePath, line: UInt = #line) -> String {
    do {
      try body()
      XCTFail("no failure", file: file, line: line)
      return ""
    } catch {
      return error.description
    }
  }

  // MARK: - Reading

  func testRead_regularFileOverTheLimit_isRefusedBeforeReading() throws {
    let path = directory + "/ten.json"
    try Data(repeating: UInt8(ascii: "x"), count: 10).write(to: URL(fileURLWithPath: path))
    XCTAssertEqual(try FileBytes.read(path, limit: 10).count, 10)
    XCTAssertEqual(
      failure { () throws(FileBytes.Failure) in _ = try FileBytes.read(path, limit: 9) },
      "\(path): is too large: more than 9 bytes, the most that is read")
  }

  func testRead_sparseFileOverTheDefaultLimit_isRefusedWithoutReadingIt() throws {
    let path = directory + "/huge.json"
    XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
    XCTAssertEqual(truncate(path, off_t(FileBytes.defaultReadLimit) + 1), 0, "a sparse file costs no disk")
    XCTAssertEqual(
      failure { () throws(FileBytes.Failure) in _ = try FileBytes.read(path) },
      "\(path): is too large: more than 4 GiB, the most that is read")
  }

  func testRead_pipeOverTheLimit_stopsAtTheLimit() throws {
    for (count, limit, expected) in [(100, 10, "is too large: more than 10 bytes, the most that is read"), (10, 10, nil)] {
      let pipe = Pipe()
      pipe.fileHandleForWriting.write(Data(repeating: UInt8(ascii: "x"), count: count))
      try pipe.fileHandleForWriting.close()
      let path = "/proc/self/fd/\(pipe.fileHandleForReading.fileDescriptor)"
      if let expected {
        XCTAssertEqual(failure { () throws(FileBytes.Failure) in _ = try FileBytes.read(path, limit: limit) }, "\(path): \(expected)")
      } else {
        XCTAssertEqual(try FileBytes.read(path, limit: limit).count, count)
      }
    }
  }

  func testRead_directoryAndDevice_areNotFiles() {
    XCTAssertEqual(
      failure { () throws(FileBytes.Failure) in _ = try FileBytes.read(directory) }, "\(directory): is a directory, not a file")
    XCTAssertEqual(failure { () throws(FileBytes.Failure) in _ = try FileBytes.read("/dev/zero") }, "/dev/zero: is a device, not a file")
  }

  func testRead_missingFileAndFileAsDirectory_sayWhy() throws {
    let file = directory + "/file"
    try Data("x".utf8).write(to: URL(fileURLWithPath: file))
    XCTAssertEqual(
      failure { () throws(FileBytes.Failure) in _ = try FileBytes.read(directory + "/missing") },
      "\(directory)/missing: cannot open: No such file or directory")
    XCTAssertEqual(
      failure { () throws(FileBytes.Failure) in _ = try FileBytes.read(file + "/x") }, "\(file)/x: cannot open: Not a directory")
  }

  func testReadAndWrite_emptyPath_namesNoFile() {
    XCTAssertEqual(failure { () throws(FileBytes.Failure) in _ = try FileBytes.read("") }, "\"\": an empty path names no file")
    XCTAssertEqual(
      failure { () throws(FileBytes.Failure) in try FileBytes.writeAtomically([1], to: "") }, "\"\": an empty path names no file")
  }

  // MARK: - Writing

  func testWrite_readOnlyFile_isRefusedAndKept() throws {
    guard geteuid() != 0 else { throw XCTSkip("running as root, which may write any file whatever its mode") }
    let target = directory + "/read-only.json"
    try Data("old".utf8).write(to: URL(fileURLWithPath: target))
    XCTAssertEqual(chmod(target, 0o444), 0)
    XCTAssertEqual(
      failure { () throws(FileBytes.Failure) in try FileBytes.writeAtomically([1], to: target) },
      "\(target): cannot write: Permission denied")
    XCTAssertEqual(try String(contentsOfFile: target, encoding: .utf8), "old")
  }

  func testWrite_directory_isRefusedAndKept() throws {
    let target = directory + "/report"
    try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
    XCTAssertEqual(
      failure { () throws(FileBytes.Failure) in try FileBytes.writeAtomically([1], to: target) }, "\(target): is a directory, not a file")
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory), ["report"], "no temporary file is left")
  }

  func testWrite_missingDirectory_namesIt() {
    let target = directory + "/missing/report.json"
    XCTAssertEqual(
      failure { () throws(FileBytes.Failure) in try FileBytes.writeAtomically([1], to: target) },
      "\(target): cannot create a file in \(directory)/missing: No such file or directory")
  }

  func testWrite_symbolicLink_staysALinkAndTheFileKeepsItsPermissions() throws {
    let real = directory + "/baseline.json"
    let link = directory + "/link.json"
    try Data("old".utf8).write(to: URL(fileURLWithPath: real))
    XCTAssertEqual(chmod(real, 0o600), 0)
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "baseline.json")
    try FileBytes.writeAtomically(Array("new".utf8), to: link)
    XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link), "baseline.json")
    XCTAssertEqual(try String(contentsOfFile: real, encoding: .utf8), "new")
    let permissions = try FileManager.default.attributesOfItem(atPath: real)[.posixPermissions] as? Int
    XCTAssertEqual(permissions, 0o600)
    XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: directory)), ["baseline.json", "link.json"])
  }

  func testWrite_namedPipe_isWrittenInPlace() throws {
    let fifo = directory + "/fifo"
    XCTAssertEqual(mkfifo(fifo, 0o600), 0)
    let received = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var bytes: [UInt8] = []
    DispatchQueue.global().async {
      bytes = (try? FileBytes.read(fifo)) ?? []
      received.signal()
    }
    try FileBytes.writeAtomically(Array("report".utf8), to: fifo)
    XCTAssertEqual(received.wait(timeout: .now() + 10), .success)
    XCTAssertEqual(String(decoding: bytes, as: UTF8.self), "report")
    var status = stat()
    XCTAssertEqual(lstat(fifo, &status), 0)
    XCTAssertEqual(status.st_mode & S_IFMT, S_IFIFO, "the pipe is not replaced by a file")
  }

  private func mode(of path: String) -> mode_t {
    var status = stat()
    XCTAssertEqual(stat(path, &status), 0, path)
    return status.st_mode & 0o7777
  }

  func testWrite_newFile_isItsOwnersOnly_whateverTheUmask() throws {
    let previous = umask(0)
    defer { umask(previous) }
    try FileBytes.writeAtomically(Array("snapshot".utf8), to: directory + "/new.json")
    XCTAssertEqual(mode(of: directory + "/new.json"), 0o600)

    let shared = directory + "/shared.json"
    try Data("old".utf8).write(to: URL(fileURLWithPath: shared))
    XCTAssertEqual(chmod(shared, 0o640), 0)
    try FileBytes.writeAtomically(Array("new".utf8), to: shared)
    XCTAssertEqual(mode(of: shared), 0o640, "an existing file keeps the mode its owner gave it")
  }

  /// A program's threads create files while the agent writes snapshots: each of their files
  /// gets the program's umask, which a write must never change, not even for an instant.
  func testWrite_whileAnotherThreadCreatesFiles_leavesTheUmaskAlone() throws {
    let previous = umask(0o022)
    defer { umask(previous) }
    let created = directory + "/created"
    try FileManager.default.createDirectory(atPath: created, withIntermediateDirectories: false)
    let done = ManagedAtomicFlag()
    let finished = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var count = 0
    Thread.detachNewThread {
      while !done.isSet {
        let descriptor = open("\(created)/\(count)", O_WRONLY | O_CREAT | O_CLOEXEC, 0o666)
        if descriptor >= 0 { close(descriptor) }
        count += 1
      }
      finished.signal()
    }
    // Writes until the other thread made many files, each write a window the old way had.
    var writes = 0
    while count < 20_000 && writes < 200_000 {
      try FileBytes.writeAtomically(Array("\(writes)".utf8), to: directory + "/snapshot.json")
      writes += 1
    }
    done.set()
    XCTAssertEqual(finished.wait(timeout: .now() + 10), .success)
    XCTAssertGreaterThan(count, 1_000, "the other thread created files meanwhile (\(writes) writes)")
    let modes = Set(try FileManager.default.contentsOfDirectory(atPath: created).map { mode(of: "\(created)/\($0)") })
    XCTAssertEqual(modes, [0o644], "every file the other thread created got its umask")
  }
}

/// A flag one thread sets and another polls.
private final class ManagedAtomicFlag: @unchecked Sendable {
  private let lock = NSLock()
  private var value = false
  var isSet: Bool { lock.withLock { value } }
  func set() { lock.withLock { value = true } }
}
