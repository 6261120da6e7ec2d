// foundation-blockoperation.swift: LEAKY (Foundation).
// A `BlockOperation` whose execution block captures the operation itself:
// BlockOperation -> its execution blocks -> closure context -> BlockOperation.
// swift-corelibs-foundation keeps the blocks after the operation finished, so
// the operation is never freed. Three operations are run synchronously
// (`start()`) and dropped. A global `Results` object stays reachable (not a
// leak). Foundation's own objects owned by the operations (locks and the like)
// leak with them; only the BlockOperation instances are counted.
//
// EXPECT-LEAKED: BlockOperation=3
// EXPECT-FIELDS:

import Foundation

final class Results {
    var values: [Int] = []
}

let results = Results()

@inline(never)
func runOperation(_ index: Int) {
    let operation = BlockOperation()
    operation.addExecutionBlock {
        if operation.isCancelled { return }
        results.values.append(index * index)
    }
    operation.start()
}

for index in 0..<3 {
    runOperation(index)
}
print("foundation-blockoperation: \(results.values)")
