// heap-synth: writes a synthetic heap snapshot for benchmarking `leak-detector analyze`.
//
// The heap is built so that its cycles are known exactly:
// - "plain" objects get strong references only to plain objects with smaller ids (a DAG);
// - planted cycles (lengths 2...20) live on their own objects, which no other strong
//   reference targets, so no other cycle can pass through them;
// - dense components are near-complete digraphs of their own;
// - weak references go anywhere, including back edges, and must never form cycles.
// A manifest lists every planted cycle by object ids, for checking the report.

import HeapGraph

#if canImport(Glibc)
  import Glibc
#endif

/// Bad usage: says what is wrong and exits with 64 (EX_USAGE), never a crash.
func usageError(_ message: String) -> Never {
  let text = "heap-synth: \(message)\nusage: heap-synth [--objects N] [--references N] [--cycles N] "
    + "[--dense-components N] [--dense-size N] [--seed N] [--output FILE] [--manifest FILE]\n"
  _ = text.withCString { write(2, $0, strlen($0)) }
  exit(64)
}

func number<T: FixedWidthInteger>(_ value: String, for flag: String) -> T {
  guard let number = T(value), number >= 0 else { usageError("\(flag) needs a non-negative integer, not '\(value)'") }
  return number
}

struct Options {
  var objects = 1_000_000
  var references = 3_000_000
  var cycles = 10_000
  var denseComponents = 4
  var denseSize = 12
  var seed: UInt64 = 42
  var output = "heap.json"
  var manifest: String?

  init(arguments: [String]) {
    var iterator = arguments.dropFirst().makeIterator()
    while let flag = iterator.next() {
      guard let value = iterator.next() else { usageError("\(flag) needs a value") }
      switch flag {
      case "--objects": objects = number(value, for: flag)
      case "--references": references = number(value, for: flag)
      case "--cycles": cycles = number(value, for: flag)
      case "--dense-components": denseComponents = number(value, for: flag)
      case "--dense-size": denseSize = number(value, for: flag)
      case "--seed": seed = number(value, for: flag)
      case "--output": output = value
      case "--manifest": manifest = value
      default: usageError("unknown option \(flag)")
      }
    }
  }
}

struct SplitMix64: RandomNumberGenerator {
  var state: UInt64
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

func synthesize(_ options: Options) throws {
  var random = SplitMix64(state: options.seed)
  let typeNames = (0..<60).map { "SynthApp.Type\($0)" } + (0..<20).map { "closure #\($0 % 3 + 1) in SynthApp.Screen\($0).load()" }
  let labels = (0..<12).map { "field\($0)" } + (0..<8).map { "items[\($0)]" } + ["delegate", "onUpdate", "capture #0: Screen", "cache[\"key\"]"]

  var builder = HeapSnapshot.Builder(metadata: .init(tool: "heap-synth", createdAt: "2026-11-22T00:00:00Z", process: "synthetic seed \(options.seed)"))
  for stack in 0..<64 {
    builder.addStack(id: Int64(stack), frames: [
      StackFrame(pc: 0x55d0_0000 + UInt64(stack) * 16, symbol: "swift_allocObject"),
      StackFrame(pc: 0x55d1_0000 + UInt64(stack) * 16, symbol: "SynthApp.make\(stack)() -> SynthApp.Type\(stack)", file: "Synth\(stack % 8).swift", line: 10 + stack),
    ])
  }

  var nextID: Int64 = 0
  func addObject() -> Int64 {
    nextID += 1
    let stack: Int64? = nextID % 4 == 0 ? Int64(nextID % 64) : nil
    builder.addObject(
      id: nextID, type: typeNames[Int.random(in: 0..<typeNames.count, using: &random)],
      address: 0x7f00_0000_0000 + UInt64(nextID) * 48, size: 16 * Int.random(in: 2...12, using: &random), stack: stack)
    return nextID
  }
  var referenceCount = 0
  func addReference(_ from: Int64, _ to: Int64, _ ownership: Ownership) {
    builder.addReference(from: from, to: to, label: labels[Int.random(in: 0..<labels.count, using: &random)], ownership: ownership)
    referenceCount += 1
  }

  // Planted cycles and dense components first, on objects of their own.
  var planted: [[Int64]] = []
  for _ in 0..<options.cycles {
    let length = Int.random(in: 2...20, using: &random)
    let members = (0..<length).map { _ in addObject() }
    for index in 0..<length { addReference(members[index], members[(index + 1) % length], .strong) }
    planted.append(members)
  }
  var denseMembers: [Int64] = []
  for _ in 0..<options.denseComponents {
    let members = (0..<options.denseSize).map { _ in addObject() }
    for a in members {
      for b in members where a != b && Bool.random(using: &random) { addReference(a, b, .strong) }
    }
    for index in members.indices { addReference(members[index], members[(index + 1) % members.count], .strong) }  // strongly connected
    denseMembers += members
  }
  let firstPlain = nextID + 1
  let plainCount = options.objects - Int(nextID)
  precondition(plainCount > 100, "heap-synth: --objects is too small for the planted cycles")
  for _ in 0..<plainCount { _ = addObject() }
  let total = nextID

  // Weak references anywhere (10% of the budget), then a strong DAG over plain objects.
  let weakCount = (options.references - referenceCount) / 10
  for _ in 0..<weakCount {
    addReference(Int64.random(in: 1...total, using: &random), Int64.random(in: 1...total, using: &random), .weak)
  }
  while referenceCount < options.references {
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

  try FileBytes.writeAtomically(builder.snapshot.jsonBytes(), to: options.output)
  if let manifest = options.manifest {
    var text = "{\"objects\": \(total), \"references\": \(referenceCount), \"denseObjects\": \(denseMembers.count), \"plantedCycles\": [\n"
    text += planted.map { "[" + $0.map(String.init).joined(separator: ",") + "]" }.joined(separator: ",\n")
    text += "\n]}\n"
    try FileBytes.writeAtomically(Array(text.utf8), to: manifest)
  }
  print("heap-synth: wrote \(total) objects, \(referenceCount) references, \(planted.count) planted cycles, \(options.denseComponents) dense components to \(options.output)")
}

try synthesize(Options(arguments: CommandLine.arguments))
