// clean-dispatch.swift: CLEAN (Dispatch).
// Serial and concurrent queues, a DispatchGroup, a semaphore, `asyncAfter`
// that fires and completes, a `DispatchWorkItem` that is run and then
// released, and closures that capture their objects weakly or only for the
// duration of the work. Everything is freed before the program exits.
//
// EXPECT-LEAKED: none
// EXPECT-FIELDS:

import Dispatch

final class Worker: @unchecked Sendable {
    let id: Int
    var done = 0
    private let lock = DispatchSemaphore(value: 1)

    init(id: Int) { self.id = id }

    func record() {
        lock.wait()
        done += 1
        lock.signal()
    }
}

final class Scheduler {
    let queue = DispatchQueue(label: "corpus.clean.scheduler")
    var pending: DispatchWorkItem?
    var fired = 0

    func schedule() {
        let item = DispatchWorkItem { [weak self] in self?.fired += 1 }
        pending = item
        queue.async(execute: item)
        item.wait()
        pending = nil  // the cycle-free way: drop the item when it ran
    }
}

@inline(never)
func runAll() -> Int {
    let concurrent = DispatchQueue(label: "corpus.clean.concurrent", attributes: .concurrent)
    let group = DispatchGroup()
    let workers = (0..<3).map { Worker(id: $0) }
    for worker in workers {
        for _ in 0..<4 {
            concurrent.async(group: group) { worker.record() }
        }
    }
    group.wait()

    let semaphore = DispatchSemaphore(value: 0)
    let later = Worker(id: 99)
    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) {
        later.record()
        semaphore.signal()
    }
    semaphore.wait()

    let scheduler = Scheduler()
    scheduler.schedule()
    scheduler.schedule()

    return workers.reduce(0) { $0 + $1.done } + later.done + scheduler.fired
}

print("clean-dispatch: \(runAll())")
