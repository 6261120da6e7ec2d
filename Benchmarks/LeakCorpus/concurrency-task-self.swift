// concurrency-task-self.swift: LEAKY (Swift concurrency).
// A `Feed` stores in `task` a `Task` whose closure captures `self` and awaits
// the feed's own `AsyncStream`, which is never finished:
// Feed -> task -> the task's async frame -> Feed (and Feed -> continuation ->
// the stream's storage -> the suspended task). The task is suspended forever
// and nothing outside the cycle refers to it. Three feeds are started in a
// loop and dropped; the program waits until every task has started.
// A global atomic counter of started tasks stays (it is not an object).
//
// EXPECT-LEAKED: Feed=3
// EXPECT-FIELDS: task

import Synchronization

let started = Atomic<Int>(0)

final class Feed: @unchecked Sendable {
    let name: String
    let stream: AsyncStream<Int>
    let continuation: AsyncStream<Int>.Continuation
    var task: Task<Void, Never>?
    var total = 0

    init(name: String) {
        self.name = name
        (stream, continuation) = AsyncStream<Int>.makeStream()
    }

    func start() {
        task = Task {
            started.add(1, ordering: .relaxed)
            for await value in self.stream {  // never finished
                self.total += value
            }
        }
    }
}

@inline(never)
func startFeed(_ index: Int) {
    let feed = Feed(name: "feed-\(index)")
    feed.start()
}

for index in 0..<3 {
    startFeed(index)
}
for _ in 0..<200 where started.load(ordering: .relaxed) < 3 {
    try? await Task.sleep(nanoseconds: 1_000_000)
}
print("concurrency-task-self: \(started.load(ordering: .relaxed)) feeds started")
