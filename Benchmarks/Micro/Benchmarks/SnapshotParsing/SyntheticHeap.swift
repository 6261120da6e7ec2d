import HeapGraph

/// A synthetic heap snapshot, built the way `heap-synth` builds one (Benchmarks/HeapSynth), so
/// that its cycles are known: "plain" objects hold strong references only to plain objects with
/// smaller ids (no cycle), planted cycles of 2 to 20 objects and dense components (near-complete
/// digraphs) live on objects of their own, weak references go anywhere, and every 997th plain
/// object is a root.
struct SyntheticHeap: Sendable {
  /// The heap of the parse benchmarks: 100,000 objects, 300,000 references, 1,000 planted
  /// cycles, 4 dense components of 12 objects (as `heap-synth --objects 100000 --references
  /// 300000 --cycles 1000`).
  static let benchmarkHeap = SyntheticHeap(
    objects: 100_000, references: 300_000, cycles: 1_000, denseComponents: 4, denseSize: 12)

  let snapshot: HeapSnapshot

  init(objects: Int, references: Int, cycles: Int, denseComponents: Int, denseSize: Int, seed: UInt64 = 42) {
    var random = SplitMix64(state: seed)
    let typeNames =
      (0..<60).map { "SynthApp.Type\($0)" } + (0..<20).map { "closure #\($0 % 3 + 1) in SynthApp.Screen\($0).load()" }
    let labels =
      (0..<12).map { "field\($0)" } + (0..<8).map { "items[\($0)]" } + ["delegate", "onUpdate", "capture #0: Screen", "cache[\"key\"]"]
    var builder = HeapSnapshot.Builder(
      metadata: .init(tool: "micro-benchmarks", createdAt: "2026-11-22T00:00:00Z", process: "synthetic seed \(seed)"))
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

    for _ in 0..<cycles {
      let members = (0..<Int.random(in: 2...20, using: &random)).map { _ in addObject() }
      for index in members.indices { addReference(members[index], members[(index + 1) % members.count], .strong) }
    }
    for _ in 0..<denseComponents {
      let members = (0..<denseSize).map { _ in addObject() }
      for a in members {
        for b in members where a != b && Bool.random(using: &random) { addReference(a, b, .strong) }
      }
      for index in members.indices { addReference(members[index], members[(index + 1) % members.count], .strong) }
    }
    let firstPlain = nextID + 1
    precondition(objects - Int(nextID) > 100, "too few objects for the planted cycles")
    while nextID < objects { _ = addObject() }
    let total = nextID

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
  }
}
