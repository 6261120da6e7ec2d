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
    XCTAssertEqual(failure { () throws(FileBytes.Failure) in _ = try FileBytes.read(path, limit: 9) }, "\(path): is too large: more than 9 bytes, the most that is read")
  }

  func testRead_sparseFileOverTheDefaultLimit_isRefusedWithoutReadingIt() throws {
    let path = directory + "/huge.json"
    XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
    XCTAssertEqual(truncate(path, off_t(FileBytes.defaultReadLimit) + 1), 0, "a sparse file costs no disk")
    XCTAssertEqual(failure { () throws(FileBytes.Failure) in _ = try FileBytes.read(path) }, "\(path): is too large: more than 4 GiB, the most that is read")
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
    XCTAssertEqual(failure { () throws(FileBytes.Failure) in _ = try FileBytes.read(directory) }, "\(directory): is a directory, not a file")
    XCTAssertEqual(failure { () throws(FileBytes.Failure) in _ = try FileBytes.read("/dev/zero") }, "/dev/zero: is a device, not a file")
  }

  func testRead_missingFileAndFileAsDirectory_sayWhy() throws {
    let file = directory + "/file"
    try Data("x".utf8).write(to: URL(fileURLWithPath: file))
    XCTAssertEqual(failure { () throws(FileBytes.Failure) in _ = try FileBytes.read(directory + "/missing") }, "\(directory)/missing: cannot open: No such file or directory")
    XCTAssertEqual(failure { () throws(FileBytes.Failure) in _ = try FileBytes.read(file + "/x") }, "\(file)/x: cannot open: Not a directory")
  }

  func testReadAndWrite_emptyPath_namesNoFile() {
    XCTAssertEqual(failure { () throws(FileBytes.Failure) in _ = try FileBytes.read("") }, "\"\": an empty path names no file")
    XCTAssertEqual(failure { () throws(FileBytes.Failure) in try FileBytes.writeAtomically([1], to: "") }, "\"\": an empty path names no file")
  }

  // MARK: - Writing

  func testWrite_readOnlyFile_isRefusedAndKept() throws {
    guard geteuid() != 0 else { throw XCTSkip("running as root, which may write any file whatever its mode") }
    let target = directory + "/read-only.json"
    try Data("old".utf8).write(to: URL(fileURLWithPath: target))
    XCTAssertEqual(chmod(target, 0o444), 0)
    XCTAssertEqual(failure { () throws(FileBytes.Failure) in try FileBytes.writeAtomically([1], to: target) }, "\(target): cannot write: Permission denied")
    XCTAssertEqual(try String(contentsOfFile: target, encoding: .utf8), "old")
  }

  func testWrite_directory_isRefusedAndKept() throws {
    let target = directory + "/report"
    try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
    XCTAssertEqual(failure { () throws(FileBytes.Failure) in try FileBytes.writeAtomically([1], to: target) }, "\(target): is a directory, not a file")
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
}
