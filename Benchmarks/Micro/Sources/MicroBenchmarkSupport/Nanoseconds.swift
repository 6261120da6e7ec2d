/// How long `body` took, in nanoseconds of the monotonic clock.
@inline(__always)
public func nanoseconds(_ body: () throws -> Void) rethrows -> Int {
  let start = ContinuousClock.now
  try body()
  let elapsed = ContinuousClock.now - start
  return Int(elapsed.components.seconds) * 1_000_000_000 + Int(elapsed.components.attoseconds / 1_000_000_000)
}
