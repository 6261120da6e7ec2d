import Foundation
import LeakDetectorTesting
import LeakTestSupport

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

/// Deallocates while a leak report is being prepared: the capture child asks it for its
/// declared references, and it uses that moment to tell a thread of the test process, through a
/// page shared with the child, to drop its last owner. The capture still holds it; it dies when
/// the capture ends.
final class SlowToDie: LeakReflectable {
  nonisolated(unsafe) private static var holder: SlowToDie?
  nonisolated(unsafe) private static let captured: UnsafeMutablePointer<UInt8> = {
    let page = mmap(nil, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0)
    precondition(page != MAP_FAILED)
    return page!.assumingMemoryBound(to: UInt8.self)
  }()

  /// Keeps `object` alive until a capture reads it. The shared page says how far things went:
  /// 1 armed, 2 a capture reached the object, 3 the object was released.
  static func holdUntilCaptured(_ object: SlowToDie) {
    holder = object
    captured.pointee = 1
    Thread {
      eventually { SlowToDie.captured.pointee == 2 }
      SlowToDie.holder = nil
      SlowToDie.captured.pointee = 3
    }.start()
  }

  /// Read by the capture: once armed, it says it reached the object and goes on only once the
  /// object is released, so that the capture outlasts the release.
  var leakReferences: [DeclaredReference] {
    if Self.captured.pointee == 1 {
      Self.captured.pointee = 2
      eventually { Self.captured.pointee == 3 }
    }
    return []
  }
}
