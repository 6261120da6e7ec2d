// Uses Foundation, Dispatch and Swift concurrency, and ends with nothing leaked.
import Dispatch
import Foundation

struct Message: Codable { var id: Int; var text: String }

final class Counter: @unchecked Sendable {
  var value = 0
  let lock = NSLock()
  func add(_ amount: Int) { lock.lock(); value += amount; lock.unlock() }
}

actor Ledger {
  var total = 0
  func add(_ amount: Int) { total += amount }
}

final class Observer {
  var token: NSObjectProtocol?
  var hits = 0
  init(center: NotificationCenter) {
    token = center.addObserver(forName: Notification.Name("ping"), object: nil, queue: nil) { [weak self] _ in
      self?.hits += 1
    }
  }
  func stop(center: NotificationCenter) { token.map(center.removeObserver) }
}

@inline(never) func foundation() throws {
  let data = try JSONEncoder().encode([Message(id: 1, text: "a"), Message(id: 2, text: "b")])
  let decoded = try JSONDecoder().decode([Message].self, from: data)
  precondition(decoded.count == 2)
  let formatter = DateFormatter()
  formatter.dateFormat = "yyyy-MM-dd"
  _ = formatter.string(from: Date(timeIntervalSince1970: 0))
  let center = NotificationCenter()
  let observer = Observer(center: center)
  center.post(name: Notification.Name("ping"), object: nil)
  observer.stop(center: center)
  _ = URL(fileURLWithPath: "/tmp").appendingPathComponent("x").path
}

@inline(never) func dispatch() {
  let counter = Counter()
  let group = DispatchGroup()
  let queue = DispatchQueue(label: "clean", attributes: .concurrent)
  for index in 0..<50 { queue.async(group: group) { counter.add(index) } }
  group.wait()
  let done = DispatchSemaphore(value: 0)
  queue.asyncAfter(deadline: .now() + .milliseconds(10)) { counter.add(1); done.signal() }
  done.wait()
  precondition(counter.value == 1226)
}

@inline(never) func concurrency() async {
  let ledger = Ledger()
  await withTaskGroup(of: Void.self) { group in
    for index in 0..<20 { group.addTask { await ledger.add(index) } }
  }
  let task = Task { await ledger.add(1) }
  await task.value
  let total = await ledger.total
  precondition(total == 191)
}

try foundation()
dispatch()
await concurrency()
print("clean")
