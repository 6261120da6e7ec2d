/// How many steps ahead a walk that reads its rows in order (the graph's edges in stored order,
/// the references of a snapshot, the dominator tree's numbers) asks for the line it will read
/// (`cprefetch_for_reading`, `cprefetch_for_writing`): far enough that a miss to memory overlaps
/// the steps in between, near enough that the line is still in the cache when it is read.
/// Sixteen, measured on the ten-million-object heap (see Benchmarks/README.md, "Where memory is
/// slow"). A walk whose steps do more work (Lengauer and Tarjan's forest) asks fewer steps ahead.
enum PrefetchDistance {
  static let inOrder = 16
}
