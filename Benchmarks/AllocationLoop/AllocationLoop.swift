// The allocation loop both allocation benchmarks run: each iteration allocates one small object
// and releases the one it replaces in a ring of 256 live objects (a loop that frees at once is
// bimodal on these machines; see Documentation/RuntimeNotes.md, "Timing on these machines").
// Returns the best repetition, in ns per allocation + deallocation.

public final class Small {
  public var first = 0
  public var second = 0

  public init(_ value: Int) {
    first = value
  }
}

@inline(never)
public func bestNanosecondsPerAllocation(iterations: Int = 2_000_000, repetitions: Int = 12) -> Double {
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
