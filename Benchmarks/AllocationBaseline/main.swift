// allocation-baseline: the allocation loop in a program that does not link LeakDetector.
//   allocation-baseline                  – the ring of 256 (run.py)
//   allocation-baseline PATTERN [small]  – one of `AllocationPattern`'s (tracking-patterns.py), also
//                                          run under `leak-detector run`
import AllocationLoop

let arguments = CommandLine.arguments.dropFirst()
if let name = arguments.first {
  guard let pattern = AllocationPattern(rawValue: name) else {
    fatalError("unknown pattern \(name); one of \(AllocationPattern.allCases.map(\.rawValue))")
  }
  let nanoseconds = bestNanosecondsPerAllocation(pattern, small: arguments.dropFirst().first == "small")
  print("{\"configuration\": \"baseline\", \"pattern\": \"\(name)\", \"nanoseconds\": \(nanoseconds)}")
} else {
  print("{\"configuration\": \"baseline\", \"nanoseconds\": \(bestNanosecondsPerAllocation())}")
}
