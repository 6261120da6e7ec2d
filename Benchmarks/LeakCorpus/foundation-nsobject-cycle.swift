// foundation-nsobject-cycle.swift: LEAKY (Foundation).
// A cycle of NSObject subclasses through Foundation class instances:
// `Request` (an NSObject subclass) keeps a `FetchOperation` (an `Operation`
// subclass) in `operation`, and the operation keeps its `request`:
// Request -> FetchOperation -> Request. The request also keeps an
// `NSMutableDictionary` of attributes that stores the request itself under
// "owner": Request -> attributes (NSMutableDictionary) -> Request.
// Three requests are made in a loop, their operation run, and dropped.
// A global `Tally` object stays reachable (not a leak).
//
// EXPECT-LEAKED: Request=3 FetchOperation=3 NSMutableDictionary=3
// ALLOCATED-BY: NSMutableDictionary=NSDictionary
// EXPECT-FIELDS: operation request attributes

import Foundation

final class Tally {
    var fetched = 0
}

let tally = Tally()

final class Request: NSObject {
    let path: String
    var operation: FetchOperation?
    let attributes = NSMutableDictionary()

    init(path: String) {
        self.path = path
        super.init()
        attributes["owner"] = self
        attributes["path"] = path
    }
}

final class FetchOperation: Operation, @unchecked Sendable {
    let request: Request  // should be weak

    init(request: Request) {
        self.request = request
        super.init()
    }

    override func main() {
        tally.fetched += request.path.count
    }
}

@inline(never)
func fetch(_ index: Int) {
    let request = Request(path: "/items/\(index)")
    let operation = FetchOperation(request: request)
    request.operation = operation
    operation.start()
}

for index in 0..<3 {
    fetch(index)
}
print("foundation-nsobject-cycle: fetched \(tally.fetched) bytes")
