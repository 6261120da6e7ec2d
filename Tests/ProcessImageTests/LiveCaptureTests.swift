import Foundation
import LeakTestSupport
import ProcessImage
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// `ProcessImage.capture(processID:)` of the running fixture: what it reads, and that the target
/// runs on afterwards whatever happens to the capture (a failure, the tool killed while every
/// thread is stopped).
final class LiveCaptureTests: XCTestCase {
  private var target: ThreadedTarget!

  override func setUpWithError() throws {
    let directory = try makeTemporaryDirectory(prefix: "process-image")
    target = try ThreadedTarget.start(executable: try ThreadedTarget.compile(into: directory))
    XCTAssertTrue(target.isReady, "the fixture never wrote its ready line")
  }

  override func tearDown() {
    target = nil
  }

  func testCapture_readsThreadsMemoryAndMappings_andTheTargetRunsOn() throws {
    let image = try ProcessImage.capture(processID: target.processID)

    XCTAssertEqual(image.origin, .process(target.processID))
    XCTAssertEqual(image.processID, target.processID)
    XCTAssertEqual(image.threads.count, 4, "\(image.threads.map(\.threadID))")
    XCTAssertEqual(image.threads.first?.threadID, target.processID, "the main thread first")
    XCTAssertEqual(image.threads.first?.name, "threaded-target")
    XCTAssertEqual(image.executablePath, target.executable)
    XCTAssertEqual(image.commandLine, [target.executable])

    var pattern = [UInt8](repeating: 0, count: 64)
    XCTAssertEqual(pattern.withUnsafeMutableBytes { image.read(into: $0, at: target.bufferAddress) }, 64)
    XCTAssertEqual(pattern, ThreadedTarget.pattern)
    XCTAssertEqual(image.readWord(at: target.globalAddress), ThreadedTarget.globalValue)
    XCTAssertEqual(image.segment(containing: target.globalAddress)?.isWritable, true)
    var text = [UInt8](repeating: 0, count: ThreadedTarget.text.utf8.count)
    XCTAssertEqual(
      text.withUnsafeMutableBytes { image.read(into: $0, at: target.textAddress) }, text.count, "read-only data, read after resuming")
    XCTAssertEqual(String(decoding: text, as: UTF8.self), ThreadedTarget.text)
    XCTAssertEqual(image.segment(containing: target.textAddress)?.path, target.executable)

    for (earlier, later) in zip(image.segments, image.segments.dropFirst()) {
      XCTAssertLessThan(earlier.start, earlier.end)
      XCTAssertLessThanOrEqual(earlier.end, later.start, "sorted and not overlapping")
    }
    for thread in image.threads {
      let stack = image.segment(containing: thread.stackPointer)
      XCTAssertNotNil(stack?.contents, "thread \(thread.threadID)'s stack pointer is in a segment with contents")
      XCTAssertNotNil(image.readWord(at: thread.stackPointer))
      XCTAssertEqual(thread["rsp"], thread.stackPointer)
      XCTAssertNotEqual(thread.fsBase, 0)
    }
    let libraryCode = image.segments.filter { ($0.path ?? "").contains("libc.so") && !$0.isWritable }
    XCTAssertFalse(libraryCode.isEmpty)
    XCTAssertTrue(libraryCode.allSatisfy { $0.contents != nil }, "\(image.diagnostics)")
    XCTAssertFalse(image.segments.contains { $0.path == "[vvar]" || $0.path == "[vsyscall]" })
    // Read-only memory is the process's, not its file's where the two differ (relocated RELRO
    // data): the bytes are those /proc/PID/mem reads now (read-only memory does not change).
    let memory = try XCTUnwrap(FileHandle(forReadingAtPath: "/proc/\(target.processID)/mem"))
    for segment in image.segments where !segment.isWritable {
      guard let contents = segment.contents else { continue }
      try memory.seek(toOffset: UInt64(segment.start))
      let live = try memory.read(upToCount: contents.count) ?? Data()
      XCTAssertTrue([UInt8](live) == [UInt8](contents), "\(segment.path ?? "anonymous") at \(String(segment.start, radix: 16)) differs")
    }

    let pause = try XCTUnwrap(image.pauseDuration)
    XCTAssertGreaterThan(pause, .zero)
    XCTAssertLessThan(pause, .seconds(2), "a small process's pause")
    try assertRunsOn()
  }

  func testCapture_failingWhileStopped_leavesTheTargetRunning() throws {
    var options = CaptureOptions()
    options.failureWhileStopped = { @Sendable in ProcessImageFailure(.captureFailed, "failed on purpose") }
    let stopped = Counter()
    options.whileStopped = { @Sendable in stopped.add() }
    XCTAssertThrowsError(try ProcessImage.capture(processID: target.processID, options: options)) { error in
      XCTAssertEqual(error as? ProcessImageFailure, ProcessImageFailure(.captureFailed, "failed on purpose"))
    }
    XCTAssertEqual(stopped.value, 1, "it failed while every thread was stopped")
    try assertRunsOn()
  }

  func testCapture_ofMoreWritableMemoryThanAllowed_failsWithoutStoppingIt() throws {
    var options = CaptureOptions()
    options.maximumCopiedBytes = 1
    let stopped = Counter()
    options.whileStopped = { @Sendable in stopped.add() }
    XCTAssertThrowsError(try ProcessImage.capture(processID: target.processID, options: options)) { error in
      let failure = error as? ProcessImageFailure
      XCTAssertEqual(failure?.kind, .captureFailed)
      XCTAssertTrue(failure?.description.contains("more than the 1 the capture may copy") ?? false, "\(error)")
    }
    XCTAssertEqual(stopped.value, 0)
    try assertRunsOn()
  }

  func testCapture_toolKilledWhileEveryThreadIsStopped_leavesTheTargetRunning() throws {
    let targetID = target.processID
    let child = try ForkedChild.start { output in
      var options = CaptureOptions()
      options.whileStopped = { @Sendable in
        writeText("stopped\n", to: output)
        kill(getpid(), SIGKILL)
      }
      _ = try? ProcessImage.capture(processID: targetID, options: options)
      writeText("the capture returned\n", to: output)
    }
    XCTAssertEqual(child.readLine(), "stopped")
    let (status, output) = child.wait()
    XCTAssertTrue(status & 0x7f == SIGKILL, "the capturing child ended with status \(status): \(output)")
    try assertRunsOn()
  }

  func testCapture_ofAProcessAnotherTracerHolds_saysWhoHoldsIt() throws {
    let targetID = target.processID
    var descriptors: [Int32] = [0, 0]
    XCTAssertTrue(makePipe(&descriptors))
    let release = descriptors
    let child = try ForkedChild.start { output in
      close(release[1])  // so that the parent's close ends the read
      var options = CaptureOptions()
      options.whileStopped = { @Sendable in
        writeText("stopped\n", to: output)
        var byte: UInt8 = 0
        _ = read(release[0], &byte, 1)
      }
      _ = try? ProcessImage.capture(processID: targetID, options: options)
    }
    XCTAssertEqual(child.readLine(), "stopped")
    XCTAssertThrowsError(try ProcessImage.capture(processID: targetID)) { error in
      let failure = error as? ProcessImageFailure
      XCTAssertEqual(failure?.kind, .alreadyTraced, "\(error)")
      XCTAssertTrue(failure?.description.contains("process \(child.processID)") ?? false, "\(error)")
    }
    close(release[1])
    close(release[0])
    _ = child.wait()
    try assertRunsOn()
  }

  func testCapture_asAnotherUser_failsSayingWhatToGrant() throws {
    try XCTSkipUnless(getuid() == 0, "only root can start a capture as another user (uid 65534) of its own process")
    let targetID = target.processID
    let child = try ForkedChild.start { output in
      guard setgid(65534) == 0, setuid(65534) == 0 else { return writeText("could not drop to uid 65534", to: output) }
      do {
        _ = try ProcessImage.capture(processID: targetID)
        writeText("the capture succeeded", to: output)
      } catch {
        writeText("\(error)", to: output)
      }
    }
    let (_, output) = child.wait()
    XCTAssertTrue(output.hasPrefix("cannot trace process \(targetID): permission denied"), output)
    XCTAssertTrue(output.contains("CAP_SYS_PTRACE"), output)
    try assertRunsOn()
  }

  func testCapture_whileSignalsArrive_losesNone() throws {
    // Real-time signals queue, so each one sent is handled once: one that reached a thread as it
    // was being stopped (a signal-delivery stop) must be delivered when it is resumed.
    let targetID = target.processID
    let realTimeSignal = __libc_current_sigrtmin()  // SIGRTMIN, a macro over it
    let queued = Counter()
    let sender = Thread {
      // As fast as it can, counting the signals the kernel queued (a full queue refuses one).
      for _ in 0..<3000 where kill(targetID, realTimeSignal) == 0 {
        queued.add()
        sched_yield()
      }
      queued.finish()
    }
    sender.start()
    var captures = 0
    while !queued.isFinished || captures < 5 {
      let image = try ProcessImage.capture(processID: targetID)
      XCTAssertEqual(image.threads.count, 4)
      captures += 1
    }
    let sent = queued.value
    XCTAssertGreaterThan(sent, 0)
    XCTAssertTrue(eventually { ((try? target.counts().signals) ?? 0) >= sent }, "\((try? target.counts().signals) ?? 0) of \(sent) handled")
    XCTAssertEqual(try target.counts().signals, sent)
    try assertRunsOn()
  }

  func testCapture_ofAProcessStoppedBySIGSTOP_leavesItStopped() throws {
    kill(target.processID, SIGSTOP)
    XCTAssertTrue(eventually { target.state.hasPrefix("T") }, target.state)
    let image = try ProcessImage.capture(processID: target.processID)
    XCTAssertEqual(image.threads.count, 4)
    XCTAssertEqual(image.readWord(at: target.globalAddress), ThreadedTarget.globalValue)
    XCTAssertTrue(eventually { target.state.hasPrefix("T (stopped)") }, "job control's stop is the process's own: \(target.state)")
    kill(target.processID, SIGCONT)
    try assertRunsOn()
  }

  func testCapture_ofNoProcess_saysSo() {
    XCTAssertThrowsError(try ProcessImage.capture(processID: Int32.max)) { error in
      XCTAssertEqual((error as? ProcessImageFailure)?.description, "no process \(Int32.max)")
    }
  }

  func testPermissionDenied_explainsYamaScopes() {
    let none = ProcessImageFailure.permissionDenied(processID: 1234, yamaPtraceScope: nil).description
    XCTAssertTrue(none.hasPrefix("cannot trace process 1234: permission denied (it runs as another user"), none)
    XCTAssertTrue(none.contains("--cap-add SYS_PTRACE"), none)
    XCTAssertFalse(none.contains("yama"), none)
    let one = ProcessImageFailure.permissionDenied(processID: 1234, yamaPtraceScope: 1).description
    XCTAssertTrue(one.contains("ptrace_scope is 1: only a parent may trace its descendants"), one)
    let three = ProcessImageFailure.permissionDenied(processID: 1234, yamaPtraceScope: 3).description
    XCTAssertTrue(three.contains("not even root"), three)
  }

  /// Waits until the target is neither stopped nor traced, then checks that its counters move.
  private func assertRunsOn(file: StaticString = #filePath, line: UInt = #line) throws {
    XCTAssertTrue(eventually { !target.isStopped && tracer(of: target.processID) == 0 }, "state \(target.state)", file: file, line: line)
    let first = try target.count()
    XCTAssertTrue(eventually { ((try? target.count()) ?? 0) > first }, "its counters stopped at \(first)", file: file, line: line)
  }

  private func tracer(of processID: Int32) -> Int? {
    let status = (try? String(contentsOfFile: "/proc/\(processID)/status", encoding: .utf8)) ?? ""
    return status.split(separator: "\n").first { $0.hasPrefix("TracerPid:") }.flatMap {
      Int($0.dropFirst(10).trimmingCharacters(in: .whitespaces))
    }
  }
}

/// A count one thread adds to and another reads, and whether the first is done.
private final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var count: UInt64 = 0
  private var finished = false

  func add() { lock.withLock { count += 1 } }
  func finish() { lock.withLock { finished = true } }
  var value: UInt64 { lock.withLock { count } }
  var isFinished: Bool { lock.withLock { finished } }
}
