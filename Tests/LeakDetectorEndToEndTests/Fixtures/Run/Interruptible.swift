// Leaks one cycle, writes "ready" in the directory given as the first argument, then waits for
// signals until one ends it (it handles none itself: an interrupt ends it as it ends any program).
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

connect()
let ready = open(CommandLine.arguments[1] + "/ready", O_CREAT | O_WRONLY, 0o644)
close(ready)
while true { pause() }
