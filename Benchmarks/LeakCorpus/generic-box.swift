// generic-box.swift: LEAKY.
// A generic container class `Box<T>` holds its value strongly; a `Holder`
// keeps a `Box<Holder>` that boxes the holder itself:
// Holder -> box -> Box<Holder>.value -> Holder. A second cycle goes through a
// generic class with two parameters, `Pair<String, Tag>`, via `Tag.pair`:
// Tag -> pair -> Pair<String, Tag>.second -> Tag.
// Three of each are made in a loop and dropped. A global registry of names
// (a plain array of strings) stays reachable.
//
// EXPECT-LEAKED: Holder=3 Box<Holder>=3 Tag=3 Pair<String,Tag>=3
// EXPECT-FIELDS: box value pair second

var registry: [String] = []

final class Box<T> {
    var value: T
    init(_ value: T) { self.value = value }
}

final class Pair<A, B> {
    var first: A
    var second: B
    init(_ first: A, _ second: B) {
        self.first = first
        self.second = second
    }
}

final class Holder {
    let id: Int
    var box: Box<Holder>?
    init(id: Int) { self.id = id }
}

final class Tag {
    let label: String
    var pair: Pair<String, Tag>?
    init(label: String) { self.label = label }
}

@inline(never)
func makeCycle(_ index: Int) {
    let holder = Holder(id: index)
    holder.box = Box(holder)
    let tag = Tag(label: "tag-\(index)")
    tag.pair = Pair("pair-\(index)", tag)
    registry.append(tag.label)
}

for index in 0..<3 {
    makeCycle(index)
}
print("generic-box: \(registry.count) tags")
