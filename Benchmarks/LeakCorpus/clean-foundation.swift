// clean-foundation.swift: CLEAN (Foundation).
// Uses JSONEncoder/JSONDecoder on Codable values, a DateFormatter, an
// `Operation` run by an `OperationQueue`, and a NotificationCenter observer
// that is added (block-based, capturing its owner weakly) and removed again.
// Every object the program makes is freed before it exits; what Foundation
// keeps in its own globals (NotificationCenter.default, caches) is reachable.
//
// EXPECT-LEAKED: none
// EXPECT-FIELDS:

import Foundation

struct Article: Codable, Equatable {
    var title: String
    var tags: [String]
    var published: Date
}

final class ArticleStore {
    var articles: [Article] = []
    var observer: NSObjectProtocol?
    var notifications = 0

    func startObserving() {
        observer = NotificationCenter.default.addObserver(
            forName: Notification.Name("corpus.article.added"), object: nil, queue: nil
        ) { [weak self] _ in
            self?.notifications += 1
        }
    }

    func stopObserving() {
        if let observer { NotificationCenter.default.removeObserver(observer) }
        observer = nil
    }
}

/// An NSMutableArray behind an NSLock, shared by the queue's operations.
final class Tally: @unchecked Sendable {
    private let lock = NSLock()
    private let numbers = NSMutableArray()
    var count: Int { lock.withLock { numbers.count } }
    func add(_ number: NSNumber) { lock.withLock { numbers.add(number) } }
}

@inline(never)
func roundTrip() throws -> Int {
    let store = ArticleStore()
    store.startObserving()
    let formatter = DateFormatter()
    formatter.dateFormat = "yyyy-MM-dd HH:mm"
    formatter.timeZone = TimeZone(identifier: "UTC")
    for index in 0..<3 {
        let date = Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 3_600)
        store.articles.append(Article(title: "Article \(index) at \(formatter.string(from: date))", tags: ["t\(index)"], published: date))
        NotificationCenter.default.post(name: Notification.Name("corpus.article.added"), object: nil)
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let data = try encoder.encode(store.articles)
    let decoded = try JSONDecoder().decode([Article].self, from: data)
    precondition(decoded == store.articles)
    store.stopObserving()

    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 2
    let sum = Tally()
    for index in 0..<3 {
        queue.addOperation {
            sum.add(NSNumber(value: index))
        }
    }
    queue.waitUntilAllOperationsAreFinished()
    return data.count + store.notifications * 1_000 + sum.count
}

print("clean-foundation: \(try roundTrip())")
