/// The line that allocated each object of a graph: the package's own frame where the object's
/// stack has one (``OwnCode``), otherwise the usual allocation site (``Swift/Array/allocationSite``),
/// looked up once per stack.
///
/// ``HeapTally`` and ``HeapMemory`` count a path's objects by these lines, and
/// ``ObjectsAllocatedBetween`` the objects allocated between two snapshots.
struct AllocationSites {
  private let graph: ObjectGraph
  private let ownCode: OwnCode
  private var siteOfStack: [Int32: StackFrame?] = [:]

  init(graph: ObjectGraph, ownCode: OwnCode) {
    self.graph = graph
    self.ownCode = ownCode
  }

  /// The line that allocated `node`; `nil` when the snapshot has no stack for it.
  mutating func site(of node: Int) -> StackFrame? {
    let stack = graph.stackIndices[node]
    guard stack >= 0 else { return nil }
    if let known = siteOfStack[stack] { return known }
    let frames = graph.stacks[Int(stack)].frames
    let site = ownCode.firstOwnFrame(in: frames).map { frames[$0] } ?? frames.allocationSite
    siteOfStack[stack] = site
    return site
  }
}
