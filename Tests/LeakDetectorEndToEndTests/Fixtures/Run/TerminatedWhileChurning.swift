// A program for the soak of termination signals under `leak-detector run`: it leaks one cycle,
// writes "ready" in the directory given as its first argument, then makes and frees objects of
// several sizes, with arrays and dictionaries that grow and shrink, until a signal ends it: the
// exit capture runs while it is inside `malloc`, `free` or the tracker as often as anywhere else.
#if canImport(Glibc)
  import Glibc
#endif

final class Session { var connection: Connection? }
final class Connection { var session: Session? }
final class Small { var next: Small? }
final class Large {
  var words: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
  var small = Small()
}

func connect() {
  let session = Session()
  session.connection = Connection()
  session.connection?.session = session
}

connect()
let ready = open(CommandLine.arguments[1] + "/ready", O_CREAT | O_WRONLY, 0o644)
close(ready)
var ring = [AnyObject?](repeating: nil, count: 512)
var table: [Int: [Small]] = [:]
var round = 0
while true {
  for slot in ring.indices {
    ring[slot] = slot % 3 == 0 ? Large() : Small()
  }
  table[round % 64, default: []].append(Small())
  if round % 64 == 63 { table.removeAll(keepingCapacity: round % 128 == 127) }
  round += 1
}
