// Leaks one cycle, starts a thread that waits for ever when its second argument is "thread",
// writes "ready" in the directory given as the first argument with the number of threads the
// process has, then waits for signals until one ends it (it handles none itself: an interrupt
// ends it as it ends any program). With "exit" as its second argument, it keeps 300,000 objects
// and exits once ready instead, so that its exit capture takes a while.
#if canImport(Glibc)
  import Glibc
#endif

final class Session { var connection: Connection? }
final class Connection { var session: Session? }

func connect() {
  let session = Session()
  session.connection = Connection()
  session.connection?.session = session
}

/// The number of threads of this process, from /proc/self/status.
func threadCount() -> String {
  guard let status = fopen("/proc/self/status", "r") else { return "?" }
  defer { fclose(status) }
  var line = [CChar](repeating: 0, count: 256)
  while fgets(&line, Int32(line.count), status) != nil {
    let text = String(cString: line)
    if text.hasPrefix("Threads:") { return String(text.dropFirst("Threads:".count).filter(\.isNumber)) }
  }
  return "?"
}

final class Kept {}
nonisolated(unsafe) var kept: [Kept] = []

connect()
let mode = CommandLine.arguments.count > 2 ? CommandLine.arguments[2] : ""
if mode == "exit" { kept = (0..<300_000).map { _ in Kept() } }
if mode == "thread" {
  var thread = pthread_t()
  pthread_create(&thread, nil, { _ in
    while true { pause() }
  }, nil)
}
let count = threadCount()
let ready = open(CommandLine.arguments[1] + "/ready.partial", O_CREAT | O_WRONLY, 0o644)
_ = count.withCString { write(ready, $0, strlen($0)) }
close(ready)
rename(CommandLine.arguments[1] + "/ready.partial", CommandLine.arguments[1] + "/ready")
if mode == "exit" { exit(0) }
while true { pause() }
