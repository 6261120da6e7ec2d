// Tasks that wait for ever on streams fed by live Dispatch sources, as a server's signal handling
// does (swift-service-lifecycle's UnixSignalsSequence): a signal source for SIGUSR2 and SIGHUP,
// a timer source and a read source on a pipe nobody writes to. Each source's event handler yields
// into the stream's continuation, and only the source's handlers hold the stream, the task waiting
// on it and the storage that keeps the sources: nothing of it is leaked. One cycle nobody points
// to is leaked. Writes "ready" in the directory given as the first argument once the tasks wait,
// and exits when the test opens the pipe named "stop" there, the tasks still waiting; without an
// argument it exits as soon as they wait.
import Dispatch
import Foundation

/// The signals a source is made for, as a small enum: its payload is a tag, not a reference.
enum Trapped: CaseIterable {
  case hangUp, user2
  var number: Int32 { self == .hangUp ? SIGHUP : SIGUSR2 }
}

/// One source and the signal it handles, as UnixSignalsSequence keeps them.
struct Source {
  var dispatchSource: DispatchSource
  var signal: Trapped
}

/// The sources, cancelled when the storage goes away (never, while its task waits).
final class SignalStorage {
  let sources: [Source]
  let stream: AsyncStream<Trapped>

  init() {
    sources = Trapped.allCases.map { trapped in
      signal(trapped.number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: trapped.number, queue: queue)
      return Source(dispatchSource: source as! DispatchSource, signal: trapped)
    }
    stream = AsyncStream { [sources] continuation in
      for source in sources {
        source.dispatchSource.setEventHandler { continuation.yield(source.signal) }
        source.dispatchSource.setCancelHandler { continuation.finish() }
      }
    }
    for source in sources { source.dispatchSource.resume() }
  }

  deinit { for source in sources { source.dispatchSource.cancel() } }
}

/// A repeating timer source whose ticks a task waits for.
final class TickStorage {
  let timer = DispatchSource.makeTimerSource(queue: queue)
  let stream: AsyncStream<Void>

  init() {
    let timer = timer
    stream = AsyncStream { continuation in timer.setEventHandler { continuation.yield() } }
    timer.schedule(deadline: .now() + 3600, repeating: 3600)
    timer.resume()
  }

  deinit { timer.cancel() }
}

/// A read source on a pipe nobody writes to.
final class ReadStorage {
  let source: DispatchSourceRead
  let stream: AsyncStream<Int>

  init(fileDescriptor: Int32) {
    let source = DispatchSource.makeReadSource(fileDescriptor: fileDescriptor, queue: queue)
    self.source = source
    stream = AsyncStream { continuation in source.setEventHandler { continuation.yield(Int(source.data)) } }
    source.resume()
  }

  deinit { source.cancel() }
}

final class Forgotten { var me: Forgotten? }

/// A weak reference from a global makes the leaked object escape, so optimized builds allocate it
/// on the heap as debug builds do (without keeping it alive).
final class Escapes { weak var forgotten: Forgotten? }
let escapes = Escapes()

let queue = DispatchQueue(label: "DispatchSources.handlers")
let waiting = DispatchGroup()

@inline(never) func startTasks() {
  var pipeEnds: [Int32] = [0, 0]
  _ = pipe(&pipeEnds)
  for _ in 0..<3 { waiting.enter() }
  Task.detached {
    let storage = SignalStorage()
    waiting.leave()
    for await signal in storage.stream { print("signal", signal) }
  }
  Task.detached {
    let storage = TickStorage()
    waiting.leave()
    for await _ in storage.stream { print("tick") }
  }
  Task.detached { [reading = pipeEnds[0]] in
    let storage = ReadStorage(fileDescriptor: reading)
    waiting.leave()
    for await count in storage.stream { print("read", count) }
  }
}

@inline(never) func leak() {
  let forgotten = Forgotten()
  forgotten.me = forgotten
  escapes.forgotten = forgotten
}

/// Returns once every thread of the cooperative pool has come back for new work, all at the same
/// time (as many tasks as the pool has threads, one per processor, each waiting until all have
/// arrived): the tasks above, which ran on those threads, then wait in `for await`. Gives up after
/// ten seconds, for a pool narrower than the processors.
func passOverEveryPoolThread() {
  let width = max(ProcessInfo.processInfo.activeProcessorCount, 1)
  let deadline = ContinuousClock.now + .seconds(10)
  let barrier = DispatchGroup()
  let arrived = Barrier()
  for _ in 0..<width {
    barrier.enter()
    Task.detached {
      arrived.arrive()
      while arrived.count < width && ContinuousClock.now < deadline { sched_yield() }
      barrier.leave()
    }
  }
  _ = barrier.wait(timeout: .now() + 10)
}

/// How many tasks arrived at the barrier.
final class Barrier: @unchecked Sendable {
  private let lock = NSLock()
  private var arrivals = 0
  var count: Int { lock.withLock { arrivals } }
  func arrive() { lock.withLock { arrivals += 1 } }
}

startTasks()
leak()
waiting.wait()
passOverEveryPoolThread()
if CommandLine.arguments.count > 1 {
  let directory = CommandLine.arguments[1]
  _ = FileManager.default.createFile(atPath: directory + "/ready", contents: Data())
  let stop = open(directory + "/stop", O_RDONLY)  // a pipe: returns once the test opens it to write
  if stop >= 0 { close(stop) }
}
print("stopped")
