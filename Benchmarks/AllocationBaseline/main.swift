// allocation-baseline: the allocation loop in a program that does not link LeakDetector.
import AllocationLoop

print("{\"configuration\": \"baseline\", \"nanoseconds\": \(bestNanosecondsPerAllocation())}")
