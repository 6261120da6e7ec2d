// Threads allocate and free objects until the test opens the pipe named "stop" in the directory
// given as the first argument; "ready" is written there once they run. Leaks one cycle.
import Foundation

final class Request { var response: Response? }
final class Response { var request: Request? }

let directory = CommandLine.arguments[1]
final class Flag: @unchecked Sendable { var running = true }
let flag = Flag()
var threads: [Thread] = []
for _ in 0..<3 {
  let thread = Thread {
    while flag.running {
      let request = Request()
      request.response = Response()  // no cycle: freed at once
      _ = request
    }
  }
  thread.start()
  threads.append(thread)
}
let leaked = Request()
leaked.response = Response()
leaked.response?.request = leaked
FileManager.default.createFile(atPath: directory + "/ready", contents: Data())
let stop = open(directory + "/stop", O_RDONLY)  // a pipe: returns once the test opens it to write
if stop >= 0 { close(stop) }
flag.running = false
print("stopped")
