// allocation-bench: the allocation loop with LeakDetector linked, in one configuration:
//   off      – interposers linked, tracking off
//   tracked  – tracking on, no stacks
//   stacks   – tracking on, with libunwind stacks
//   sampled  – sampled tracking at the default 512 KiB (one allocation in ~16,000 of this loop's)
//   extras   – symbolization rate of cached frames, and a snapshot of 100,000 live objects
// `off`, `tracked`, `stacks` and `sampled` take a pattern of `AllocationPattern` (and `small`) after them
// to time it instead of the ring of 256 (tracking-patterns.py).
import AllocationLoop
import LeakDetector

func seconds(_ body: () -> Void) -> Double {
  let start = ContinuousClock.now
  body()
  let elapsed = ContinuousClock.now - start
  return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

final class Linked {
  var next: Linked?
  var handler: (() -> Void)?
  var items: [Linked] = []
}

@inline(never)
func makeLinked(count: Int) -> [Linked] {
  var objects: [Linked] = []
  objects.reserveCapacity(count)
  for index in 0..<count {
    let object = Linked()
    if index > 0 { object.next = objects[index - 1] }
    if index % 10 == 0 { object.handler = { print(object.items.count) } }  // a cycle through a closure
    objects.append(object)
  }
  return objects
}

let mode = CommandLine.arguments.dropFirst().first ?? "off"
switch mode {
case "off", "tracked", "stacks", "profile", "sampled":
  if mode != "off" {
    AllocationTracker.start(
      .init(capturesStacks: mode == "stacks", sampleInterval: mode == "sampled" ? AllocationTracker.Configuration.defaultSampleInterval : 0)
    )
  }
  let rest = CommandLine.arguments.dropFirst(2)
  if let name = rest.first {
    guard let pattern = AllocationPattern(rawValue: name) else {
      fatalError("unknown pattern \(name); one of \(AllocationPattern.allCases.map(\.rawValue))")
    }
    let nanoseconds = bestNanosecondsPerAllocation(pattern, small: rest.dropFirst().first == "small")
    print("{\"configuration\": \"\(mode)\", \"pattern\": \"\(name)\", \"nanoseconds\": \(nanoseconds)}")
  } else {
    let nanoseconds = mode == "profile" ? bestNanosecondsPerAllocation(iterations: 200_000, repetitions: 1) : bestNanosecondsPerAllocation()
    print("{\"configuration\": \"\(mode)\", \"nanoseconds\": \(nanoseconds)}")
  }
  AllocationTracker.stop()
default:
  AllocationTracker.start(.init(capturesStacks: true))
  let generation = AllocationTracker.markGeneration()
  let objects = makeLinked(count: 100_000)
  var snapshot: HeapSnapshot?
  let snapshotSeconds = seconds { snapshot = AllocationTracker.snapshot(inGeneration: generation) }
  // Symbolization of cached frames: the frames of every captured stack, looked up again.
  let tracked = AllocationTracker.liveObjects(inGeneration: generation).prefix(1_000)
  var pcs: [UInt] = []
  for object in tracked { pcs += object.allocationStack.compactMap { $0.pc.map { UInt($0) - 1 } } }
  var lookups = 0
  let symbolizeSeconds = seconds {
    for _ in 0..<200 {
      for pc in pcs { _ = Symbolicator.shared.frame(at: pc) }
      lookups += pcs.count
    }
  }
  print(
    "{\"configuration\": \"extras\", \"snapshotObjects\": \(snapshot?.objectCount ?? 0), \"snapshotSeconds\": \(snapshotSeconds), "
      + "\"cachedFramesPerSecond\": \(Int(Double(lookups) / symbolizeSeconds))}")
  AllocationTracker.stop()
  withExtendedLifetime(objects) {}
}
