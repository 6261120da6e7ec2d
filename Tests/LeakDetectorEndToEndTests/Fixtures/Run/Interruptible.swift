// Leaks one cycle, writes "ready" in the directory given as the first argument, then waits for
// signals until one ends it (it handles none itself: an interrupt ends it as it ends any program).
// With "exit" as its second argument, it keeps 300,000 objects and exits once ready instead, so
// that its exit capture takes a while.
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

final class Kept {}
nonisolated(unsafe) var kept: [Kept] = []

connect()
let exits = CommandLine.arguments.count > 2 && CommandLine.arguments[2] == "exit"
if exits { kept = (0..<300_000).map { _ in Kept() } }
let ready = open(CommandLine.arguments[1] + "/ready", O_CREAT | O_WRONLY, 0o644)
close(ready)
if exits { exit(0) }
while true { pause() }
