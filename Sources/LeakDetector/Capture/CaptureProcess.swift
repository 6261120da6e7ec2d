import CLeakRuntime

#if canImport(Glibc)
  import Glibc
#endif

/// Runs a capture in a child process forked from this one, so that it reads one consistent heap
/// and can never harm the program it inspects.
///
/// `fork()` gives the child a copy-on-write image of this process frozen at one instant, with only
/// the forking thread: no other thread can change or free what the child reads, and nothing the
/// child does (a retain, a crash, a hang) reaches this process. Every lock of this library is
/// taken across the fork (``Locked`` protected across fork, and the C layer's), so the child finds
/// them free and the state behind them consistent. The child streams its result back through a
/// pipe; this process only waits, and stops the child after a time bound.
///
/// A child that crashes, stalls, exits early or sends a result that does not decode is one failed
/// attempt: it becomes a diagnostic, and a fresh child is forked (a new instant) until
/// ``CaptureLimits/attempts`` are used up.
///
/// ```swift
/// let outcome = CaptureProcess(limits: CaptureLimits()).run(
///   in: { progress in capture(progress).binaryBytes() },
///   decode: { try HeapSnapshot(binaryBytes: $0) })
/// ```
package struct CaptureProcess {
  var limits: CaptureLimits

  package init(limits: CaptureLimits) { self.limits = limits }

  /// What came back: the decoded result of the first attempt that succeeded (`nil` when none
  /// did), one diagnostic per failed attempt, and, when none succeeded, why the capture was
  /// given up.
  package struct Outcome<Result> {
    package var result: Result?
    package var diagnostics: [CaptureDiagnostic]
    package var failure: CaptureFailure?
  }

  /// Forks a child that runs `body` and sends the bytes it returns; decodes them here. `body`
  /// reports its progress (one step per object read) through the recorder it gets.
  package func run<Result>(
    in body: (ProgressRecorder) -> [UInt8], decode: ([UInt8]) throws -> Result
  ) -> Outcome<Result> {
    var diagnostics: [CaptureDiagnostic] = []
    for attempt in 1...limits.attempts {
      let failure: CaptureAttemptFailure
      switch runOnce(body, fault: CaptureFault.next()) {
      case .success(let bytes):
        do {
          return Outcome(result: try decode(bytes), diagnostics: diagnostics, failure: nil)
        } catch {
          failure = .unreadableResult(error: "\(error)")
        }
      case .failure(let problem):
        failure = problem
      }
      diagnostics.append(failure.diagnostic(attempt: attempt, of: limits.attempts))
      if attempt == limits.attempts {
        return Outcome(result: nil, diagnostics: diagnostics, failure: .gaveUp(lastAttempt: failure, attempts: attempt))
      }
    }
    preconditionFailure("CaptureProcess.run: CaptureLimits.attempts must be at least 1, is \(limits.attempts)")
  }

  /// Where the child is, in memory shared with the parent.
  package struct ProgressRecorder {
    let shared: UnsafeMutablePointer<cleak_capture_progress>

    /// One more object is being read, at `address` (a heap object the child already checked).
    func reading(_ address: UInt) {
      cleak_capture_progress_step(shared, address)
    }
  }

  // MARK: - One attempt

  /// Waits for `child`, which sent its whole result and is exiting, on a detached thread of its
  /// own: it is reaped the moment it ends, and never lingers as a zombie, while the capture
  /// returns at once (tearing down the child's copy of the address space takes milliseconds,
  /// and more when other threads keep the cores busy). Without a thread, it is waited for here.
  private static func reapWhenItEnds(_ child: pid_t) {
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    var thread = pthread_t()
    let started = pthread_create(
      &thread, &attributes,
      { argument in
        CaptureProcess.waitFor(pid_t(truncatingIfNeeded: Int(bitPattern: argument)))
        return nil
      }, UnsafeMutableRawPointer(bitPattern: Int(child)))
    if started != 0 { waitFor(child) }
  }

  /// Waits until `child` has ended and reaps it.
  private static func waitFor(_ child: pid_t) {
    var status: Int32 = 0
    while waitpid(child, &status, 0) < 0 && errno == EINTR {}
  }

  private func runOnce(_ body: (ProgressRecorder) -> [UInt8], fault: CaptureFault?) -> Result<[UInt8], CaptureAttemptFailure> {
    guard
      let page = mmap(nil, MemoryLayout<cleak_capture_progress>.size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0),
      page != MAP_FAILED
    else {
      return .failure(.couldNotSetUp(.sharedMemory, error: errorText()))
    }
    defer { munmap(page, MemoryLayout<cleak_capture_progress>.size) }
    let progress = page.bindMemory(to: cleak_capture_progress.self, capacity: 1)
    var descriptors: [Int32] = [-1, -1]
    guard pipe(&descriptors) == 0 else {
      return .failure(.couldNotSetUp(.pipe, error: errorText()))
    }
    for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }  // not for programs the host starts
    let (readEnd, writeEnd) = (descriptors[0], descriptors[1])
    let child = fork()
    if child == 0 {
      close(readEnd)
      cleak_capture_child_begin(writeEnd)
      Self.runChild(body, progress: ProgressRecorder(shared: progress), fault: fault, output: writeEnd)
    }
    close(writeEnd)
    defer { close(readEnd) }
    guard child > 0 else {
      return .failure(.couldNotSetUp(.process, error: errorText()))
    }
    return collect(from: child, readEnd: readEnd, progress: progress)
  }

  /// The child's whole life: run, send the length-prefixed result, exit without running any
  /// exit handler of the parent's program.
  private static func runChild(
    _ body: (ProgressRecorder) -> [UInt8], progress: ProgressRecorder, fault: CaptureFault?, output: Int32
  ) -> Never {
    switch fault {
    case .crash: raise(SIGSEGV)
    case .hang: while true { pause() }
    case .exitWithoutResult: _exit(3)
    case .corruptResult: writeAll([8, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8], to: output)
    case nil:
      let result = body(progress)
      var message = withUnsafeBytes(of: UInt64(result.count)) { Array($0) }
      message += result
      writeAll(message, to: output)
    }
    _exit(0)
  }

  private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
    bytes.withUnsafeBytes { buffer in
      var offset = 0
      while offset < buffer.count {
        let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
        if written > 0 {
          offset += written
        } else if written < 0 && errno == EINTR {
          continue
        } else {
          return
        }
      }
    }
  }

  /// Reads the child's result while watching its progress; stops it when a bound is hit.
  private func collect(
    from child: pid_t, readEnd: Int32, progress: UnsafeMutablePointer<cleak_capture_progress>
  ) -> Result<[UInt8], CaptureAttemptFailure> {
    var message = ChildMessage(readEnd: readEnd)
    var status: Int32 = 0
    let ending = watch(child, sending: &message, status: &status, progress: progress)
    reap(child, ending: ending, status: &status)
    switch ending {
    case .stalled(let waitChannel):
      return .failure(.stalled(timeout: limits.stallTimeout, waitChannel: waitChannel, place: whereReading(progress)))
    case .ranTooLong:
      return .failure(.ranTooLong(limit: limits.timeLimit, place: whereReading(progress)))
    case .sent, .exited:
      if let result = message.result { return .success(result) }
    }
    if status & 0x7F != 0 {  // killed by a signal
      let signal = status & 0x7F
      let name = strsignal(signal).map { String(cString: $0) } ?? "signal \(signal)"
      return .failure(.killed(signal: signal, signalName: name, place: whereReading(progress)))
    }
    return .failure(.exitedWithoutResult(status: (status >> 8) & 0xFF, sanitizerReport: sanitizerReport(of: child)))
  }

  /// The line that names the error in the report a sanitizer wrote for `child` (`ERROR:
  /// AddressSanitizer: heap-use-after-free on address …`), and the first frame after it; the
  /// report file is removed. `nil` without a sanitizer or a report.
  private func sanitizerReport(of child: pid_t) -> String? {
    guard let path = cleak_sanitizer_report_path(child).map({ String(cString: $0) }) else { return nil }
    defer { unlink(path) }
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var lines: [String] = []
    var buffer = [CChar](repeating: 0, count: 1024)
    while lines.count < 200, fgets(&buffer, Int32(buffer.count), file) != nil {
      let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      lines.append(String(text.drop { $0 == " " || $0 == "=" }.prefix { $0 != "\n" }))
    }
    guard let error = lines.firstIndex(where: { $0.contains("ERROR: ") }) else { return lines.first { !$0.isEmpty } }
    let frame = lines[(error + 1)...].first { $0.hasPrefix("#") && !$0.contains("libclang_rt") }
    return ([lines[error]] + (frame.map { [$0] } ?? [])).joined(separator: "; ")
  }

  /// How watching a child ended.
  private enum Ending {
    /// Its whole result arrived; it may still be running (exiting).
    case sent
    /// It exited (it was reaped into the status), with or without its result.
    case exited
    /// It made no progress for the stall timeout (what the kernel says it waits in); it was killed.
    case stalled(waitChannel: String)
    /// It ran past the time limit; it was killed.
    case ranTooLong
  }

  /// Reads what the child sends until its message is complete, it exits, or it hits a bound
  /// (then it is killed). Progress is an object read or bytes arriving.
  private func watch(
    _ child: pid_t, sending message: inout ChildMessage, status: inout Int32,
    progress: UnsafeMutablePointer<cleak_capture_progress>
  ) -> Ending {
    let clock = ContinuousClock()
    let start = clock.now
    var lastProgress = start
    var lastSteps: UInt64 = 0
    while !message.isComplete {
      var request = pollfd(fd: message.readEnd, events: Int16(POLLIN), revents: 0)
      _ = poll(&request, 1, 20)
      let arrived = message.drain()
      if message.isComplete { break }
      if waitpid(child, &status, WNOHANG) == child {
        _ = message.drain()
        return .exited
      }
      let now = clock.now
      let steps = cleak_capture_progress_steps(progress)
      if arrived || steps != lastSteps {
        lastSteps = steps
        lastProgress = now
      }
      var ending: Ending?
      if now - lastProgress > limits.stallTimeout {
        ending = .stalled(waitChannel: waitChannel(of: child))
      } else if now - start > limits.timeLimit {
        ending = .ranTooLong
      }
      if let ending {
        kill(child, SIGKILL)
        return ending
      }
    }
    return .sent
  }

  /// Waits for a child that was killed or is exiting, unless it sent its whole result: that one
  /// is reaped by ``reapWhenItEnds(_:)``.
  private func reap(_ child: pid_t, ending: Ending, status: inout Int32) {
    switch ending {
    case .exited:
      return
    case .sent:
      if waitpid(child, &status, WNOHANG) != child { Self.reapWhenItEnds(child) }
    case .stalled, .ranTooLong:
      while waitpid(child, &status, 0) < 0 && errno == EINTR {}
    }
  }

  /// The length-prefixed message a child sends through its pipe, as it arrives.
  private struct ChildMessage {
    let readEnd: Int32
    private var received: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)

    init(readEnd: Int32) {
      self.readEnd = readEnd
      _ = fcntl(readEnd, F_SETFL, fcntl(readEnd, F_GETFL) | O_NONBLOCK)
    }

    /// Reads what the pipe holds now; whether anything arrived.
    mutating func drain() -> Bool {
      var any = false
      while true {
        let count = chunk.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
        guard count > 0 else { return any }
        received += chunk[..<count]
        any = true
      }
    }

    /// Whether the length and that many bytes arrived.
    var isComplete: Bool {
      guard received.count >= 8 else { return false }
      return UInt64(received.count - 8) >= length
    }

    /// The message without its length, once complete.
    var result: [UInt8]? {
      isComplete ? Array(received[8..<8 + Int(length)]) : nil
    }

    private var length: UInt64 {
      received.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
    }
  }

  /// "0x7f3a10 (MyApp.Feed)", or "the start of the capture" before any object was read.
  private func whereReading(_ progress: UnsafeMutablePointer<cleak_capture_progress>) -> String {
    guard cleak_capture_progress_steps(progress) > 0 else { return "nothing yet" }
    // Named from the metadata word the child read: the object itself may be gone by now in
    // this process, and its memory is never read here; class metadata is never freed.
    let address = UInt(cleak_capture_progress_address(progress))
    let name = RuntimeReflector.shared.className(metadata: UInt(cleak_capture_progress_metadata(progress)))
    return "0x\(String(address, radix: 16))" + (name.map { " (\($0))" } ?? "")
  }

  /// What the kernel says the stalled child waits in, e.g. " (waiting in futex_wait_queue: a lock
  /// another thread held when the capture began)".
  private func waitChannel(of child: pid_t) -> String {
    guard let file = fopen("/proc/\(child)/wchan", "r") else { return "" }
    defer { fclose(file) }
    var buffer = [UInt8](repeating: 0, count: 128)
    let count = fread(&buffer, 1, buffer.count - 1, file)
    let channel = String(decoding: buffer[..<count], as: UTF8.self)
    guard !channel.isEmpty, channel != "0" else { return "" }
    return channel.contains("futex")
      ? " (waiting in \(channel): a lock another thread held when the capture began)" : " (waiting in \(channel))"
  }

  private func errorText() -> String {
    String(cString: strerror(errno))
  }
}
