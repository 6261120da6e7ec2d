// A heap of about N live objects for `capture-pid.sh`: records in a global index, each with a
// closure that captures it back (a cycle through a context) and a few leaves, plus leaked pairs
// (a tenth of the records). Prints `ready` when the heap is built, then waits until its standard
// input closes.
import Foundation

final class Leaf {
  let value: Int
  init(_ value: Int) { self.value = value }
}
final class Record {
  let id: Int
  var leaves: [Leaf] = []
  var onChange: (() -> Void)?
  init(id: Int) { self.id = id }
}
final class Partner {
  var other: Partner?
}

let objects = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 100_000
// Each record: itself, 3 leaves, its closure's context; each leaked pair: 2 objects.
let records = objects / 6
var index: [Record] = []
index.reserveCapacity(records)
for id in 0..<records {
  let record = Record(id: id)
  record.leaves = [Leaf(id), Leaf(id + 1), Leaf(id + 2)]
  record.onChange = { [weak record] in _ = record?.id }
  index.append(record)
}
for _ in 0..<(records / 10) {
  let first = Partner()
  let second = Partner()
  first.other = second
  second.other = first
}
print("ready")
fflush(stdout)
while readLine() != nil {}
withExtendedLifetime(index) {}
