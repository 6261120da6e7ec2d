// dispatch-workitem.swift: LEAKY (Dispatch).
// A `Poller` keeps the `DispatchWorkItem` it runs in `pending`, and the work
// item's block captures the poller:
// Poller -> pending (DispatchWorkItem) -> block -> closure context -> Poller.
// The item is executed on a serial queue (and waited for), so nothing else
// holds it afterwards. Three pollers are made in a loop and dropped. A global
// `Clock` object stays reachable (not a leak).
//
// EXPECT-LEAKED: Poller=3 DispatchWorkItem=3
// EXPECT-FIELDS: pending

import Dispatch

final class Clock {
    var polls = 0
}

let clock = Clock()
let pollQueue = DispatchQueue(label: "corpus.poll")

final class Poller {
    let name: String
    var pending: DispatchWorkItem?
    var polls = 0

    init(name: String) { self.name = name }

    func poll() {
        let item = DispatchWorkItem {
            self.polls += 1
            clock.polls += 1
        }
        pending = item  // never cleared
        pollQueue.async(execute: item)
        item.wait()
    }
}

@inline(never)
func startPoller(_ index: Int) {
    let poller = Poller(name: "poller-\(index)")
    poller.poll()
}

for index in 0..<3 {
    startPoller(index)
}
print("dispatch-workitem: \(clock.polls) polls")
