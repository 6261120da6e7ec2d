// A server-like program: it handles a "request" every 20 ms for the seconds given as the second
// argument. "grow" (the first argument) caches every response, appends two handlers per request
// (one captures a new listener), starts a task per request that never ends (keeping a worker);
// "clean" keeps the last three responses, makes a singleton once and starts tasks that end.
import Foundation

final class Response { let body = [UInt8](repeating: 1, count: 256) }
final class Cache { var entries: [String: Response] = [:] }
final class Bus { var handlers: [() -> Void] = [] }
final class BoundedCache {
  var entries: [Response] = []
  func add(_ response: Response) {
    entries.append(response)
    if entries.count > 3 { entries.removeFirst() }
  }
}
final class Config { nonisolated(unsafe) static var shared: Config? }
final class Waiters: @unchecked Sendable {
  let lock = NSLock()
  var continuations: [CheckedContinuation<Void, Never>] = []
  func add(_ continuation: CheckedContinuation<Void, Never>) { lock.withLock { continuations.append(continuation) } }
}

let cache = Cache()
let bus = Bus()
let bounded = BoundedCache()
let waiters = Waiters()

func handle(_ request: Int, growing: Bool) {
  let response = Response()
  if growing {
    cache.entries["/item/\(request)"] = response
    bus.handlers.append { _ = response.body.count }
    let worker = Worker(); Task { await withCheckedContinuation { waiters.add($0) }; worker.finish() }
    let listener = Listener()
    registry.handlers.append { listener.hear(request) }
  } else {
    bounded.add(response)
    if Config.shared == nil { Config.shared = Config() }
    Task { _ = Response().body.count }
  }
}

/// What each task started per request keeps, and what each handler registered per request captures.
final class Worker: @unchecked Sendable {
  var finished = false
  func finish() { finished = true }
}
final class Listener {
  var heard: [Int] = []
  func hear(_ request: Int) { heard.append(request) }
}
final class Registry { var handlers: [() -> Void] = [] }
let registry = Registry()

let growing = CommandLine.arguments[1] == "grow"
let end = Date().addingTimeInterval(Double(CommandLine.arguments[2])!)
var request = 0
while Date() < end {
  handle(request, growing: growing)
  request += 1
  usleep(20_000)
}
print("handled \(request) requests")
