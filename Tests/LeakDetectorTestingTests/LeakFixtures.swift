import Foundation
import LeakDetectorTesting

/// A view-model-style class that leaks through a closure capturing itself.
final class LeakyViewModel {
  var items: [String] = []
  var onUpdate: (() -> Void)?
  var child: ChildModel?

  @inline(never) func bindStrongly() { onUpdate = { print(self.items.count) } }
  @inline(never) func bindWeakly() { onUpdate = { [weak self] in print(self?.items.count ?? 0) } }
}

final class ChildModel {
  var grandchild: GrandchildModel? = GrandchildModel()
}

final class GrandchildModel {
  var value = 0
}

/// Holds a view model, like a coordinator a test forgot to release.
final class Coordinator {
  var current: LeakyViewModel?
}

/// Holds objects forever, like a cache a test forgot to clear.
nonisolated(unsafe) var globalCache: [AnyObject] = []

/// Collects findings instead of failing tests.
final class FindingCollector: @unchecked Sendable {
  private let lock = NSLock()
  private var collected: [(finding: LeakFinding, file: String, line: Int)] = []

  var reporter: LeakReporting.Reporter {
    { [self] finding, file, line in
      lock.lock()
      collected.append((finding, file, line))
      lock.unlock()
    }
  }

  var findings: [(finding: LeakFinding, file: String, line: Int)] {
    lock.lock()
    defer { lock.unlock() }
    return collected
  }
}

/// A short grace period keeps the suite fast.
var fastConfiguration: LeakCheckConfiguration {
  var configuration = LeakCheckConfiguration()
  configuration.gracePeriod = .milliseconds(20)
  return configuration
}

/// Deallocates while a leak report is being prepared: the detector asks it for its declared
/// references, and it uses that moment to drop its last owner.
final class SlowToDie: LeakReflectable {
  nonisolated(unsafe) static var holder: SlowToDie?
  var leakReferences: [DeclaredReference] {
    DispatchQueue.global().async { SlowToDie.holder = nil }
    usleep(20_000)
    return []
  }
}
