/// The candidate entry objects of each leak entry, as ``EntryChoice`` ranks them: the objects
/// of the entry's component of the best rank, all of one type, in node order, kept in one flat
/// column (a component of one object, the most common kind, needs no array of its own).
struct EntryCandidates: Sendable {
  /// Where each entry's candidates start in ``nodes``; one more entry than entries.
  private var start: [Int32] = [0]
  /// The candidates of every entry, one entry after the other.
  private var nodes: [Int32] = []

  /// The candidates of the components of `representatives` (one node of each entry component).
  init(representatives: [Int], components: UnreachedComponents, choice: EntryChoice) {
    start.reserveCapacity(representatives.count + 1)
    nodes.reserveCapacity(representatives.count)
    for node in representatives {
      if components.isAcyclic(node) {
        nodes.append(Int32(node))
      } else {
        nodes += choice.candidates(among: components.members(ofComponentOf: node)).lazy.map { Int32($0) }
      }
      start.append(Int32(nodes.count))
    }
  }

  /// How many entries there are.
  var count: Int { start.count - 1 }

  /// The candidates of entry `index`, in node order: never empty.
  func nodes(of index: Int) -> ArraySlice<Int32> { nodes[Int(start[index])..<Int(start[index + 1])] }

  /// The entry object of each entry: its first candidate.
  var entries: [Int] { (0..<count).map { Int(nodes[Int(start[$0])]) } }
}
