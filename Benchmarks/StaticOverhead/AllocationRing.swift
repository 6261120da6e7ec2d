// Allocates and frees small objects in a ring of 256 live ones (as Benchmarks/AllocationLoop
// does) and prints the best of 12 repetitions in ns per allocation + deallocation: built with the
// runtime linked in and without, run plainly and under `leak-detector run`, by
// Benchmarks/static-overhead.sh.
final class Small {
  var first = 0
  var second = 0
  init(_ value: Int) { first = value }
}

@inline(never) func bestNanosecondsPerAllocation(iterations: Int, repetitions: Int) -> Double {
  var ring = [Small?](repeating: nil, count: 256)
  var best = Double.infinity
  var checksum = 0
  for _ in 0..<repetitions {
    let start = ContinuousClock.now
    for index in 0..<iterations {
      let object = Small(index)
      ring[index & 255] = object
      checksum &+= object.first
    }
    let elapsed = ContinuousClock.now - start
    let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
    best = min(best, nanoseconds / Double(iterations))
  }
  if checksum == 42 { print("") }  // keeps the loop's work observable
  withExtendedLifetime(ring) {}
  return best
}

let iterations = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 2_000_000
print(bestNanosecondsPerAllocation(iterations: iterations, repetitions: 12))
