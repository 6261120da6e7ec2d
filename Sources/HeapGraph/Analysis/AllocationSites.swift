/// The line that allocated each object, for reports that count objects by line: the package's
/// own frame where the object's stack has one (``OwnCode``), otherwise the usual allocation site.
/// Each stack is looked at once.
///
/// ```swift
/// var sites = AllocationSites(graph: graph, ownCode: analysis.options.ownCode)
/// sites.site(of: node)  // Cache.store(_:) (Cache.swift:14)
/// ```
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
