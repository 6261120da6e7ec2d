// dispatch-async-stored.swift: LEAKY (Dispatch).
// An `Uploader` submits a closure with `DispatchQueue.async(group:execute:)`
// and also keeps the same closure in `retry` to run it again later. The
// closure captures the uploader: Uploader -> retry closure -> Uploader.
// Each uploader also owns its private `DispatchQueue` in `queue`, which leaks
// with it. The async work completes (the group is waited for). Three
// uploaders are made in a loop and dropped. A global `UploadStats` object
// stays reachable (not a leak).
//
// EXPECT-LEAKED: Uploader=3 DispatchQueue=3
// EXPECT-FIELDS: retry queue

import Dispatch

final class UploadStats: @unchecked Sendable {
    var attempts = 0
}

let uploadStats = UploadStats()
let statsLock = DispatchSemaphore(value: 1)

final class Uploader: @unchecked Sendable {
    let file: String
    let queue: DispatchQueue
    var retry: (() -> Void)?
    var attempts = 0

    init(file: String) {
        self.file = file
        queue = DispatchQueue(label: "corpus.upload.\(file)")
    }

    func start(group: DispatchGroup) {
        let work: @Sendable () -> Void = {
            self.attempts += 1
            statsLock.wait()
            uploadStats.attempts += 1
            statsLock.signal()
        }
        retry = work  // never cleared
        queue.async(group: group, execute: work)
    }
}

@inline(never)
func upload(_ index: Int, group: DispatchGroup) {
    let uploader = Uploader(file: "file-\(index)")
    uploader.start(group: group)
}

let group = DispatchGroup()
for index in 0..<3 {
    upload(index, group: group)
}
group.wait()
print("dispatch-async-stored: \(uploadStats.attempts) attempts")
