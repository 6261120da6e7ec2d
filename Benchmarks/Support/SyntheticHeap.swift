import HeapGraph

/// A synthetic heap snapshot whose cycles are known exactly, for benchmarking the analysis.
///
/// - "Plain" objects hold strong references only to plain objects with smaller ids: a DAG.
/// - Planted cycles (2 to 20 objects) live on objects of their own, which no other strong
///   reference targets, so no other cycle can pass through them.
/// - Dense components are near-complete digraphs of their own.
/// - Weak references go anywhere, back edges included, and never form cycles.
/// - Every 997th plain object is a root.
///
/// The same seed gives the same snapshot, byte for byte.
public struct SyntheticHeap: Sendable {
  /// The snapshot.
  public let snapshot: HeapSnapshot
  /// The object ids of each planted cycle, in the order of its references.
  public let plantedCycles: [[Int64]]
  /// How many objects the dense components have in all.
  public let denseObjectCount: Int
  /// How many references the snapshot has, weak ones included.
  public let referenceCount: Int

  /// Builds a heap of `objects` objects and `references` references, with `cycles` planted
  /// cycles and `denseComponents` dense components of `denseSize` objects; `tool` is written
  /// into the snapshot's metadata.
  public init(
    objects: Int, references: Int, cycles: Int, denseComponents: Int, denseSize: Int, seed: UInt64 = 42, tool: String
  ) {
    var random = SeededGenerator(seed: seed)
    let typeNames =
      (0..<60).map { "SynthApp.Type\($0)" } + (0..<20).map { "closure #\($0 % 3 + 1) in SynthApp.Screen\($0).load()" }
    let labels =
      (0..<12).map { "field\($0)" } + (0..<8).map { "items[\($0)]" } + ["delegate", "onUpdate", "capture #0: Screen", "cache[\"key\"]"]
    var builder = HeapSnapshot.Builder(
      metadata: .init(tool: tool, createdAt: "2026-11-22T00:00:00Z", process: "synthetic seed \(seed)"))
    for stack in 0..<64 {
      builder.addStack(
        id: Int64(stack),
        frames: [
          StackFrame(pc: 0x55d0_0000 + UInt64(stack) * 16, symbol: "swift_allocObject"),
          StackFrame(
            pc: 0x55d1_0000 + UInt64(stack) * 16, symbol: "SynthApp.make\(stack)() -> SynthApp.Type\(stack)",
            file: "Synth\(stack % 8).swift", line: 10 + stack),
        ])
    }

    var nextID: Int64 = 0
    func addObject() -> Int64 {
      nextID += 1
      builder.addObject(
        id: nextID, type: typeNames[Int.random(in: 0..<typeNames.count, using: &random)],
        address: 0x7f00_0000_0000 + UInt64(nextID) * 48, size: 16 * Int.random(in: 2...12, using: &random),
        stack: nextID % 4 == 0 ? nextID % 64 : nil)
      return nextID
    }
    var referenceCount = 0
    func addReference(_ from: Int64, _ to: Int64, _ ownership: Ownership) {
      builder.addReference(from: from, to: to, label: labels[Int.random(in: 0..<labels.count, using: &random)], ownership: ownership)
      referenceCount += 1
    }

    // Planted cycles and dense components first, on objects of their own.
    var planted: [[Int64]] = []
    for _ in 0..<cycles {
      let members = (0..<Int.random(in: 2...20, using: &random)).map { _ in addObject() }
      for index in members.indices { addReference(members[index], members[(index + 1) % members.count], .strong) }
      planted.append(members)
    }
    var denseObjectCount = 0
    for _ in 0..<denseComponents {
      let members = (0..<denseSize).map { _ in addObject() }
      for a in members {
        for b in members where a != b && Bool.random(using: &random) { addReference(a, b, .strong) }
      }
      for index in members.indices { addReference(members[index], members[(index + 1) % members.count], .strong) }  // strongly connected
      denseObjectCount += members.count
    }
    let firstPlain = nextID + 1
    precondition(objects - Int(nextID) > 100, "SyntheticHeap: too few objects for the planted cycles")
    while nextID < objects { _ = addObject() }
    let total = nextID

    // Weak references anywhere (10% of the budget), then a strong DAG over plain objects.
    for _ in 0..<(references - referenceCount) / 10 {
      addReference(Int64.random(in: 1...total, using: &random), Int64.random(in: 1...total, using: &random), .weak)
    }
    while referenceCount < references {
      let source = Int64.random(in: 1...total, using: &random)
      var target = Int64.random(in: firstPlain...total, using: &random)
      if source >= firstPlain {
        guard source > firstPlain else { continue }
        target = Int64.random(in: firstPlain..<source, using: &random)  // strictly down: acyclic
      }
      addReference(source, target, .strong)
    }
    for root in stride(from: firstPlain, through: total, by: 997) {
      builder.addRoot(object: root, kind: "global", label: "SynthApp.global\(root)")
    }
    snapshot = builder.snapshot
    plantedCycles = planted
    self.denseObjectCount = denseObjectCount
    self.referenceCount = referenceCount
  }
}
