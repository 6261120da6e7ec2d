import NIOConcurrencyHelpers
import Vapor

/// What a request makes: a few objects that live as long as the request, as a real handler's do.
final class Order: Content, @unchecked Sendable {
  var id: Int
  var items: [Item]
  init(id: Int, items: [Item]) {
    self.id = id
    self.items = items
  }
}

final class Item: Content, @unchecked Sendable {
  var name: String
  var price: Int
  init(name: String, price: Int) {
    self.name = name
    self.price = price
  }
}

/// Orders kept after their request: GET /cached/:id stores each order it makes here, so that a
/// snapshot of the server shows what holds its memory (a reachable cache, not a leak).
final class OrderCache: @unchecked Sendable {
  static let shared = OrderCache()
  private let lock = NIOLock()
  private var orders: [Int: Order] = [:]

  func store(_ order: Order) -> Order {
    lock.withLock { orders[order.id] = order }
    return order
  }
}

let app = try await Application.make(.production)
app.http.server.configuration.port = Int(Environment.get("PORT") ?? "8080") ?? 8080
app.logger.logLevel = .error
app.get("order", ":id") { request async throws -> Order in
  let id = request.parameters.get("id", as: Int.self) ?? 0
  return Order(id: id, items: (0..<8).map { Item(name: "item \($0)", price: id &* 31 &+ $0) })
}
app.get("cached", ":id") { request async throws -> Order in
  let id = request.parameters.get("id", as: Int.self) ?? 0
  return OrderCache.shared.store(Order(id: id, items: (0..<8).map { Item(name: "item \($0)", price: id &* 31 &+ $0) }))
}
try await app.execute()
try await app.asyncShutdown()
