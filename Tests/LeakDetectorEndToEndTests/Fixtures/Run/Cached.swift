// Its biggest consumer is a reachable cache: 1,000 responses of 1 KiB each, stored by a global
// cache's dictionary. It also leaks 150 owner-pet cycles and keeps a little configuration.

final class Response {
  let id: Int
  let body: [UInt8]
  init(id: Int) {
    self.id = id
    body = [UInt8](repeating: UInt8(truncatingIfNeeded: id), count: 1_024)
  }
}

final class Cache {
  var entries: [Int: Response] = [:]
  func fill(count: Int) {
    for id in 0..<count { entries[id] = Response(id: id) }  // what holds the memory
  }
}

final class Settings {
  var name = "production"
  var limits = [1, 2, 3]
}

final class Owner {
  var pet: Pet?
}

final class Pet {
  var owner: Owner?  // LEAK: should be weak
}

let cache = Cache()
let settings = Settings()

@inline(never) func adopt() {
  let owner = Owner()
  owner.pet = Pet()
  owner.pet?.owner = owner
}

cache.fill(count: 1_000)
for _ in 0..<150 { adopt() }
print("cached \(cache.entries.count), settings \(settings.name)")
