import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Runs a body in a forked child of the test process (the tool killed mid-capture, a capture as
/// another user) and collects what it wrote and how it ended.
///
/// The body runs in a copy of a multithreaded process, so it keeps to what the capture itself
/// does (system calls, memory) and ends with `_exit`, never returning into XCTest.
///
/// ```swift
/// let child = try ForkedChild.start { output in
///   write(output, "hello", 5)
/// }
/// let (status, text) = child.wait()
/// ```
struct ForkedChild {
  let processID: Int32
  private let output: Int32

  /// Forks; the child runs `body` with the write end of a pipe the parent reads, then `_exit(0)`.
  static func start(_ body: (Int32) -> Void) throws -> ForkedChild {
    var descriptors: [Int32] = [0, 0]
    guard makePipe(&descriptors) else { throw ThreadedTarget.Failure("pipe failed") }
    let processID = fork()
    if processID == 0 {
      close(descriptors[0])
      body(descriptors[1])
      _exit(0)
    }
    close(descriptors[1])
    guard processID > 0 else { throw ThreadedTarget.Failure("fork failed") }
    return ForkedChild(processID: processID, output: descriptors[0])
  }

  /// Reads one line the child wrote (up to its newline, or the pipe's end).
  func readLine() -> String {
    var bytes: [UInt8] = []
    var byte: UInt8 = 0
    while read(output, &byte, 1) == 1, byte != UInt8(ascii: "\n") { bytes.append(byte) }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Waits for the child to end; returns its wait status and the rest of what it wrote.
  func wait() -> (status: Int32, output: String) {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = read(output, &chunk, chunk.count)
      if count <= 0 { break }
      bytes += chunk[0..<count]
    }
    close(output)
    var status: Int32 = 0
    waitpid(processID, &status, 0)
    return (status, String(decoding: bytes, as: UTF8.self))
  }
}

/// Writes `text` to `descriptor` (in a forked child: no buffering).
func writeText(_ text: String, to descriptor: Int32) {
  var bytes = Array(text.utf8)
  _ = write(descriptor, &bytes, bytes.count)
}

/// `pipe`, both ends closed on `exec` (a program spawned later must not hold a test's pipe open).
func makePipe(_ descriptors: inout [Int32]) -> Bool {
  guard pipe(&descriptors) == 0 else { return false }
  for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
  return true
}
