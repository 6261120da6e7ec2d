import CLeakAgent
import GzipCompression
import HeapGraph
import LeakDetector
import LeakDetectorRun
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The agent `leak-detector run` preloads into the program it checks: it tracks every Swift
/// object the program allocates, and captures the whole process (``AllocationTracker``'s
/// whole-process capture, in a forked child) when the program exits, and on the snapshot
/// signal while it runs.
///
/// The exit snapshot goes, in the binary form, to the run directory the command reads once the
/// program is gone, under the name `RunProtocol` gives it. A signal snapshot is written at once
/// as JSON (format version 1) for `leak-detector analyze` or `diff`:
/// `<snapshot directory>/<program>-<pid>-<n>.heapsnapshot.json`, and a line on standard error says where
/// and how long the capture took. With `run --profile`, a heap profile (pprof) goes beside each:
/// `<pid>.exit.pb.gz` in the run directory, `<program>-<pid>-<n>.pb.gz` beside a signal snapshot.
///
/// A termination request (`SIGINT` from Ctrl-C, `SIGTERM`, `SIGHUP`, `SIGQUIT`) that the program
/// leaves to its default action still gets an exit snapshot: the agent captures, then lets the
/// signal end the process as it would have. A program that handles the signal itself replaces
/// the agent's handler, and its exit is captured when it exits.
///
/// A process whose Swift runtime the agent does not understand (another build than the agent's
/// own, or a copy linked into the program that it cannot hook) is not checked: a line on its standard error and a file in
/// the run directory (``RunProtocol/Refusal``) say why.
enum Agent {
  struct Settings {
    var runDirectory: String
    var snapshotDirectory: String
    var programName: String
    var processID: pid_t
    var snapshotSignal: Int32?
    var snapshotInterval: Double?
    var writesProfiles: Bool
  }

  /// The signals that end a program by default and after which it is still captured.
  static let terminationSignals = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

  /// Set once, by `start`, before any capture can run.
  nonisolated(unsafe) static var settings = Settings(
    runDirectory: "", snapshotDirectory: ".", programName: "", processID: 0, snapshotSignal: nil, snapshotInterval: nil,
    writesProfiles: false)
  /// Serializes the captures (a signal capture may run when the program exits).
  static let captureLock = Locked<Int>(0)
  /// The termination signal the agent's thread got, which ends the process once the exit
  /// snapshot is written, on whichever thread writes it (0: none). An interrupt while the program
  /// takes its exit capture (in an exit handler) then ends it as an interrupt, not as an exit.
  static let terminationRequest = Atomic<Int32>(0)

  /// Starts checking this process, unless it runs on a Swift runtime the agent does not
  /// understand (``AgentRuntimeCheck``): then it tracks nothing and says why.
  static func start() {
    let arguments = commandLine()
    if SwiftTestProcesses.onlyListsTests(arguments) { return }
    guard let loaded = RunProtocol.Settings(environment: { getenv($0.rawValue).map { String(cString: $0) } }),
      // The run's own directory, which the path names while that run lasts (the path is the same
      // from run to run): resolved once, so that a process that outlives its run writes nothing
      // where a later run reads; nothing when the run has already ended.
      let runDirectory = FileBytes.resolvedPath(loaded.runDirectory)
    else { return }
    let program = arguments.first.map { String($0.split(separator: "/").last ?? "") } ?? "program"
    var check = AgentRuntimeCheck.ofThisProcess(program: program)
    check.hookingExecutableRuntime()
    if let reason = check.refusalReason {
      refuse(RunReport.Refusal(process: .init(arguments: arguments, processID: getpid()), reason: reason), runDirectory: runDirectory)
      return
    }
    settings = Settings(
      runDirectory: runDirectory, snapshotDirectory: loaded.snapshotDirectory, programName: program, processID: getpid(),
      snapshotSignal: loaded.snapshotSignal, snapshotInterval: loaded.snapshotInterval, writesProfiles: loaded.writesProfiles)
    AllocationTracker.start(.init(capturesStacks: loaded.recordsStacks, sampleInterval: loaded.sampleInterval ?? 0))
    atexit { Agent.captureAtExit() }
    noteStart(of: RunProtocol.ProcessDescription(arguments: arguments, processID: getpid()), runDirectory: runDirectory)
    if let signal = loaded.snapshotSignal, !cleak_agent_watch_signal(signal, false, { Agent.signalArrived($0) }) {
      complain("cannot watch signal \(signal) for snapshots")
    }
    for signal in terminationSignals where signal != loaded.snapshotSignal && cleak_agent_signal_is_default(signal) {
      _ = cleak_agent_watch_signal(signal, true, { Agent.signalArrived($0) })
    }
    if loaded.snapshotInterval != nil { startTakingSnapshotsOnInterval() }
  }

  /// Says in the run directory that this process is checked, and arranges that a fault or an
  /// abort that ends it is named there too: the command then reports a process that left no exit
  /// snapshot as not checked, with its signal, rather than leaving it out.
  private static func noteStart(of process: RunProtocol.ProcessDescription, runDirectory: String) {
    do {
      try FileBytes.writeAtomically(
        RunProtocol.startedFileBytes(process: process, parentProcessID: getppid()),
        to: "\(runDirectory)/\(RunProtocol.startedFileName(processID: process.processID))")
    } catch {
      complain("cannot write that \(process) is checked: \(error)")
    }
    if !cleak_agent_note_fatal_signals("\(runDirectory)/\(RunProtocol.fatalSignalFileName(processID: process.processID))") {
      complain("cannot watch the signals that would end \(process) before it exits")
    }
  }

  /// Leaves this process unchecked: says why on its standard error and in the run directory,
  /// where the command reads it.
  private static func refuse(_ refusal: RunReport.Refusal, runDirectory: String) {
    complain(refusal.message)
    let path = "\(runDirectory)/\(RunReport.Refusal.fileName(processID: refusal.processID))"
    do {
      try FileBytes.writeAtomically(refusal.fileBytes, to: path)
    } catch {
      complain("cannot write why \(refusal.process) is not checked: \(error)")
    }
  }

  /// A thread of the agent's that takes a snapshot every ``Settings/snapshotInterval`` seconds
  /// while the program runs (until the exit capture stops the tracker).
  private static func startTakingSnapshotsOnInterval() {
    var thread = pthread_t()
    let started = pthread_create(
      &thread, nil,
      { _ in
        guard let interval = Agent.settings.snapshotInterval else { return nil }
        var pause = timespec(tv_sec: Int(interval), tv_nsec: Int((interval - interval.rounded(.down)) * 1_000_000_000))
        while AllocationTracker.isRunning {
          var remaining = timespec()
          while nanosleep(&pause, &remaining) != 0 && errno == EINTR { pause = remaining }
          pause = timespec(tv_sec: Int(interval), tv_nsec: Int((interval - interval.rounded(.down)) * 1_000_000_000))
          Agent.captureOnSignal()
        }
        return nil
      }, nil)
    if started == 0 {
      pthread_detach(thread)
    } else {
      complain("cannot start the thread that takes snapshots every \(settings.snapshotInterval ?? 0) s")
    }
  }

  /// A watched signal, on the agent's thread: the snapshot signal takes a snapshot, a
  /// termination request the exit snapshot before it ends the process.
  static func signalArrived(_ signal: Int32) {
    if signal == settings.snapshotSignal {
      captureOnSignal()
    } else {
      terminationRequest.store(signal, ordering: .sequentiallyConsistent)
      captureAtExit()
      cleak_agent_raise_default(signal)
    }
  }

  /// The exit capture. A child forked by the program (which runs its exit handlers too) is not
  /// the process being checked: it captures nothing.
  static func captureAtExit() {
    guard getpid() == settings.processID, AllocationTracker.isRunning else { return }
    captureLock.withLock { _ in
      guard AllocationTracker.isRunning else { return }
      let start = ContinuousClock.now
      var (snapshot, _) = AllocationTracker.captureWholeProcess(process: processDescription())
      describeThisProcess(in: &snapshot, capturedSince: start)
      if settings.writesProfiles {
        writeHeapProfile(of: snapshot, to: "\(settings.runDirectory)/\(RunProtocol.exitProfileFileName(processID: settings.processID))")
      }
      AllocationTracker.stop()
      let path = "\(settings.runDirectory)/\(RunProtocol.exitSnapshotFileName(processID: settings.processID))"
      do {
        try FileBytes.writeAtomically(snapshot.binaryBytes(), to: path)
      } catch {
        complain("cannot write the exit snapshot: \(error)")
      }
    }
    let request = terminationRequest.load(ordering: .sequentiallyConsistent)
    if request != 0 { cleak_agent_raise_default(request) }
  }

  /// A capture on the snapshot signal or the interval, while the program keeps running.
  static func captureOnSignal() {
    captureLock.withLock { taken in
      guard AllocationTracker.isRunning else { return }
      taken += 1
      let start = ContinuousClock.now
      var (snapshot, _) = AllocationTracker.captureWholeProcess(process: processDescription())
      let duration = describeThisProcess(in: &snapshot, capturedSince: start)
      let encoding = snapshot.encodingChosenBySize
      let path =
        "\(settings.snapshotDirectory)/"
        + RunProtocol.liveSnapshotFileName(
          program: settings.programName, processID: settings.processID, number: taken, isJSON: encoding == .json)
      do {
        try FileBytes.writeAtomically(snapshot.fileBytes(encoding), to: path)
        let process = RunProtocol.ProcessDescription(arguments: [settings.programName], processID: settings.processID)
        var written = path
        if settings.writesProfiles {
          let profile =
            "\(settings.snapshotDirectory)/"
            + RunProtocol.liveProfileFileName(program: settings.programName, processID: settings.processID, number: taken)
          if writeHeapProfile(of: snapshot, to: profile) { written += " (heap profile \(profile))" }
        }
        complain("snapshot \(taken) of \(process), \(snapshot.objectCount) objects (\(duration)): \(written)")
      } catch {
        complain("cannot write snapshot \(taken): \(error)")
      }
    }
  }

  /// Writes the heap profile of this process to `path`, beside `snapshot`, which was just
  /// captured: when every object is tracked, the snapshot's objects (so the profile counts what
  /// the snapshot counts, owned storage included); with sampled tracking, the tracker's samples,
  /// which only the tracker can scale and count allocations for; gzipped, as pprof's files are.
  /// Says why on standard error when it cannot.
  @discardableResult
  private static func writeHeapProfile(of snapshot: HeapSnapshot, to path: String) -> Bool {
    let profile =
      AllocationTracker.sampleInterval > 0
      ? AllocationTracker.heapProfile(process: processDescription()) : HeapProfile(snapshot: snapshot).describingThisProcess()
    do {
      try FileBytes.writeAtomically(Gzip.compress(profile.pprofProfile.serializedBytes()), to: path)
      return true
    } catch {
      complain("cannot write the heap profile: \(error)")
      return false
    }
  }

  /// Records this process's id and command line in `snapshot`, and how long its capture took,
  /// which it returns.
  @discardableResult
  private static func describeThisProcess(in snapshot: inout HeapSnapshot, capturedSince start: ContinuousClock.Instant)
    -> CaptureDuration
  {
    let duration = CaptureDuration(since: start)
    snapshot.metadata.processID = settings.processID
    snapshot.metadata.arguments = commandLine()
    snapshot.metadata.captureMilliseconds = Int((duration.seconds * 1000).rounded())
    return duration
  }

  /// `FooPackageTests.xctest --testing-library swift-testing (pid 4242)`.
  private static func processDescription() -> String {
    RunProtocol.ProcessDescription(arguments: commandLine(), processID: settings.processID).description
  }

  /// This process's arguments, from /proc (the agent has no `main`).
  private static func commandLine() -> [String] {
    let bytes = (try? FileBytes.read("/proc/self/cmdline")) ?? []
    return bytes.split(separator: 0, omittingEmptySubsequences: false).dropLast().map { String(decoding: $0, as: UTF8.self) }
  }

  /// One line on the program's standard error, marked as the agent's.
  private static func complain(_ message: String) {
    let line = Array("leak-detector: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
  }
}

/// The agent's entry point, which its loader (libLeakDetectorPreload.so) looks up and calls in a
/// process to check.
@_cdecl("leak_detector_agent_start")
public func leakDetectorAgentStart() {
  Agent.start()
}
