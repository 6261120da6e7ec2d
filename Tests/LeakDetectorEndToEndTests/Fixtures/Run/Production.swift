// A server as production runs it, for `leak-detector capture`: planted leaks (100 owner-pet
// cycles, 50 tickers that keep themselves through their closure), a reachable cache of 5,000
// responses, a task waiting on a continuation a global keeps, 10,000 objects made and freed
// before it says it is ready (their memory freed, not overwritten under jemalloc), and two
// threads that keep making and freeing objects. Prints `ready PID` once all is in place, then
// runs until the test opens the pipe `stop` in the directory it is given (its first argument).
import Foundation
import Synchronization

final class Owner {
  let name: String
  var pets: [Pet] = []
  init(_ name: String) { self.name = name }
}
final class Pet {
  var owner: Owner?
  weak var friend: Pet?
}
final class Response {
  let body: [UInt8]
  init(_ count: Int) { body = [UInt8](repeating: 1, count: count) }
}
final class Cache {
  static let shared = Cache()
  var entries: [String: Response] = [:]
}
final class Ticker {
  var onTick: (() -> Void)?
  func start() { onTick = { print(self) } }
}
final class Discarded {
  var payload = (1, 2, 3, 4)
}
final class Churn {
  var next: Churn?
}

@inline(never) func plant() {
  for index in 0..<100 {
    let owner = Owner("owner \(index)")
    let pet = Pet()
    owner.pets.append(pet)
    pet.owner = owner  // LEAK: owner and pet keep each other
  }
  for _ in 0..<50 {
    let ticker = Ticker()
    ticker.start()  // LEAK: the ticker keeps the closure that keeps it
  }
  for index in 0..<5_000 { Cache.shared.entries["response \(index)"] = Response(64) }
}

/// Made and dropped: freed before the capture, never to be found in it.
@inline(never) func discard() {
  var discarded: [Discarded] = []
  for _ in 0..<10_000 { discarded.append(Discarded()) }
  discarded.removeAll()
}

nonisolated(unsafe) var parked: [CheckedContinuation<Void, Never>] = []
let parkedCount = Mutex(0)

plant()
discard()
let waiting = Task {
  await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
    parked.append(continuation)
    parkedCount.withLock { $0 += 1 }
  }
}
while parkedCount.withLock({ $0 }) == 0 { sched_yield() }
let churning = Mutex(0)
for _ in 0..<2 {
  Thread.detachNewThread {
    churning.withLock { $0 += 1 }
    while true {
      var head: Churn?
      for _ in 0..<100 {
        let link = Churn()
        link.next = head
        head = link
      }
      withExtendedLifetime(head) {}
    }
  }
}
while churning.withLock({ $0 }) < 2 { sched_yield() }
print("ready \(getpid())")
fflush(stdout)
let stop = open(CommandLine.arguments[1] + "/stop", O_RDONLY)
close(stop)
exit(0)
