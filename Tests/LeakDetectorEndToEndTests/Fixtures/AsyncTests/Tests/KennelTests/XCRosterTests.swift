import Kennel
import XCTest

/// A bark recorder of the tests' own, which keeps itself through the closure it stores: a cycle
/// through test code.
final class BarkRecorder {
  var onBark: (() -> Void)?
  var barks = 0
  func start() { onBark = { self.barks += 1 } }
}

extension XCTestCase {
  /// A helper the test target adds to XCTest's class: its code is the test target's.
  func pairKennelhands() {
    let first = Kennelhand()
    let second = Kennelhand()
    first.partner = second
    second.partner = first
  }
}

final class XCRosterTests: XCTestCase {
  /// Made for each test of the class, as XCTest makes an instance for each.
  private let leash: Leash = {
    let leash = Leash()
    leash.attach()
    return leash
  }()

  func testHandsLeak() {
    pairKennelhands()
  }

  func testRecorderLeaks() {
    BarkRecorder().start()
  }
}
