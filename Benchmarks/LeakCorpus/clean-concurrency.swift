// clean-concurrency.swift: CLEAN (Swift concurrency).
// Unstructured tasks that finish, an actor, a task group, `async let`, and an
// AsyncStream that is finished, all awaited. Every object is freed before the
// program exits.
//
// EXPECT-LEAKED: none
// EXPECT-FIELDS:

actor Inventory {
    private var items: [String: Int] = [:]
    func add(_ name: String, count: Int) { items[name, default: 0] += count }
    func total() -> Int { items.values.reduce(0, +) }
}

final class Order: Sendable {
    let id: Int
    let quantity: Int
    init(id: Int, quantity: Int) {
        self.id = id
        self.quantity = quantity
    }
}

@inline(never)
func process() async -> Int {
    let inventory = Inventory()
    let orders = (0..<6).map { Order(id: $0, quantity: $0 + 1) }

    await withTaskGroup(of: Void.self) { group in
        for order in orders {
            group.addTask { await inventory.add("item-\(order.id % 3)", count: order.quantity) }
        }
    }

    let task = Task { [orders] in orders.reduce(0) { $0 + $1.quantity } }
    async let total = inventory.total()

    let (stream, continuation) = AsyncStream<Order>.makeStream()
    let consumer = Task {
        var sum = 0
        for await order in stream { sum += order.quantity }
        return sum
    }
    for order in orders { continuation.yield(order) }
    continuation.finish()

    return await task.value + total + consumer.value
}

print("clean-concurrency: \(await process())")
