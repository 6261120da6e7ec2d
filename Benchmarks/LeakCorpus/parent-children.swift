// parent-children.swift: LEAKY.
// A tree whose nodes keep their children in an array and their parent in a
// strong `parent` property: parent -> children array -> child -> parent.
// Three trees of one root and two children each are built and dropped.
// A global counter object stays reachable (not a leak).
//
// EXPECT-LEAKED: TreeNode=9
// EXPECT-FIELDS: children parent

final class Counter {
    var built = 0
}

let counter = Counter()

final class TreeNode {
    let name: String
    var parent: TreeNode?  // should be weak
    var children: [TreeNode] = []

    init(name: String) { self.name = name }

    func add(_ child: TreeNode) {
        child.parent = self
        children.append(child)
    }
}

@inline(never)
func buildTree(_ index: Int) {
    let root = TreeNode(name: "root-\(index)")
    root.add(TreeNode(name: "left-\(index)"))
    root.add(TreeNode(name: "right-\(index)"))
    counter.built += 1 + root.children.count
}

for index in 0..<3 {
    buildTree(index)
}
print("parent-children: built \(counter.built) nodes")
