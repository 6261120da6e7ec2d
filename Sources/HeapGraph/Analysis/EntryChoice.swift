/// Which object of a leaked component a report starts from: the one the checked package's code
/// made, so that a report names what the developer created and forgot rather than the
/// dependency's internals that it holds.
///
/// Objects are ranked, and the best rank wins:
/// 0. a task, then a class instance, then a closure context or box (whose stack in a snapshot
///    is where the closure is written, not where it was made): a leaked component with a task
///    in it is a task that can never resume, which is what its developer made and must end;
/// 1. the fewest frames from the allocation to the package's own code (``OwnCode``): a test
///    channel that the package's helper made directly comes before the pipeline that the
///    channel's initializer made;
/// 2. the shallowest allocation stack: among objects the package made, the one whose code made
///    the others.
///
///    Both count only frames of code people wrote (``StackFrame/isWrittenCode``): allocating
///    initializers and thunks come and go with inlining.
/// 3. a type of one of the package's own modules;
/// 4. the smallest type name.
///
/// Nothing in the rank depends on ids or addresses, and objects without stacks are ranked by
/// the last three rules alone.
///
/// ```text
/// NIOAsyncTestingChannel  [NIOAsyncTestingChannel.init, Client.executeRequest (own), …]       → 1 frame
/// ChannelPipeline         [ChannelPipeline.init, NIOAsyncTestingChannel.init, …, (own), …]  → 3 frames
/// entry: NIOAsyncTestingChannel
/// ```
struct EntryChoice {
  let graph: ObjectGraph
  /// For each stack of the graph: its frames of code people wrote, and how many come before the
  /// first of the package's own (`Int.max` when none is).
  private let stackShapes: [(framesToOwnCode: Int, depth: Int)]
  private let ownModules: Set<String>
  /// For each stack of the graph: whether the package's code made its object (``OwnCode/made(_:)``).
  private let madeByOwnCode: [Bool]

  init(graph: ObjectGraph, ownCode: OwnCode) {
    self.graph = graph
    var facts = FrameMemo<(isWritten: Bool, isOwn: Bool)>()
    stackShapes = graph.stacks.map { stack in
      var written = 0
      var framesToOwnCode = Int.max
      for frame in stack.frames {
        let (isWritten, isOwn) = facts.value(for: frame) { ($0.isWrittenCode, ownCode.contains($0)) }
        guard isWritten else { continue }
        if framesToOwnCode == Int.max && isOwn { framesToOwnCode = written }
        written += 1
      }
      return (framesToOwnCode, written)
    }
    madeByOwnCode = graph.stacks.map { ownCode.made($0.frames) }
    ownModules = ownCode.modules(in: graph.stacks.lazy.map(\.frames))
  }

  /// The objects of `members` (one component, in node order) of the best rank, in node order:
  /// all of one type.
  func candidates(among members: [Int]) -> [Int] {
    guard members.count > 1 else { return members }
    let ranks = members.map(rank)
    let best = ranks.min { $0 < $1 }!
    return zip(members, ranks).filter { $0.1 == best }.map(\.0)
  }

  /// Whether the package's own code made `node` (``OwnCode/made(_:)``), or its type is one of the
  /// package's.
  func isOwn(_ node: Int) -> Bool {
    let stack = Int(graph.stackIndices[node])
    return (stack >= 0 && madeByOwnCode[stack]) || isOwnType(node)
  }

  private struct Rank: Comparable {
    /// 0 for a task, 1 for a class instance, 2 for anything else.
    var kindRank: Int
    var framesToOwnCode: Int
    var depth: Int
    var isOtherType: Bool
    /// The type name's rank among the graph's sorted type names.
    var typeRank: Int32

    static func < (lhs: Rank, rhs: Rank) -> Bool {
      (lhs.kindRank, lhs.framesToOwnCode, lhs.depth, lhs.isOtherType ? 1 : 0, lhs.typeRank)
        < (rhs.kindRank, rhs.framesToOwnCode, rhs.depth, rhs.isOtherType ? 1 : 0, rhs.typeRank)
    }
  }

  private func rank(_ node: Int) -> Rank {
    let stack = Int(graph.stackIndices[node])
    return Rank(
      kindRank: graph.kind(of: node) == .task ? 0 : graph.kind(of: node) == .classInstance ? 1 : 2,
      framesToOwnCode: stack >= 0 ? stackShapes[stack].framesToOwnCode : Int.max, depth: stack >= 0 ? stackShapes[stack].depth : Int.max,
      isOtherType: !isOwnType(node), typeRank: graph.typeRanks[node])
  }

  private func isOwnType(_ node: Int) -> Bool {
    !ownModules.isEmpty && ReadableName.module(of: graph.typeName(of: node)).map(ownModules.contains) == true
  }
}
