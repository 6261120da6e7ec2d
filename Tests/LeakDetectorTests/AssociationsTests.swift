import Foundation
import LeakDetector
import XCTest

final class AssociationsTests: XCTestCase {
  func testAssociations_setValueAndRemove_roundTrip() {
    let owner = escaping(Leaf())
    let value = escaping(Leaf())
    Associations.set(value, on: owner, key: "operation")
    XCTAssertTrue(Associations.value(on: owner, key: "operation") === value)
    XCTAssertNil(Associations.value(on: owner, key: "other"))
    Associations.set(nil, on: owner, key: "operation")
    XCTAssertNil(Associations.value(on: owner, key: "operation"))
    Associations.set(value, on: owner, key: "a")
    Associations.set(value, on: owner, key: "b")
    Associations.removeAll(from: owner)
    XCTAssertNil(Associations.value(on: owner, key: "a"))
    XCTAssertNil(Associations.value(on: owner, key: "b"))
  }

  func testAssociations_strongValue_isRetainedAndReleasedWithTheOwner() {
    weak var weakValue: Leaf?
    weak var weakOwner: Leaf?
    do {
      let owner = Leaf()
      let value = Leaf()
      weakOwner = owner
      weakValue = value
      Associations.set(value, on: owner, key: "value")
    }
    XCTAssertNil(weakOwner)
    XCTAssertNil(weakValue, "a strong association must die with its owner")
  }

  func testAssociations_strongValue_keepsTheValueAliveWhileTheOwnerLives() {
    let owner = escaping(Leaf())
    weak var weakValue: Leaf?
    do {
      let value = Leaf()
      weakValue = value
      Associations.set(value, on: owner, key: "value")
    }
    XCTAssertNotNil(weakValue)
    Associations.set(nil, on: owner, key: "value")
    XCTAssertNil(weakValue, "replacing an association releases the old value")
  }

  func testAssociations_weakPolicy_doesNotRetain() {
    let owner = escaping(Leaf())
    do {
      let value = Leaf()
      Associations.set(value, on: owner, key: "delegate", policy: .weak)
      XCTAssertTrue(Associations.value(on: owner, key: "delegate") === value)
    }
    XCTAssertNil(Associations.value(on: owner, key: "delegate"))
  }

  func testAssociations_strongAssociationCycle_isFoundWeakIsNot() {
    let view = escaping(Node("view"))
    let operation = escaping(Node("operation"))
    operation.handler = { print(view.name) }
    Associations.set(operation, on: view, key: "operation", policy: .weak)
    XCTAssertEqual(cycleDescriptions(from: view), [])
    Associations.set(operation, on: view, key: "operation")
    let cycles = cycleDescriptions(from: view)
    XCTAssertEqual(cycles.count, 1)
    XCTAssertTrue(cycles[0].hasPrefix("Node.associated[\"operation\"] -> Node.handler -> "), "\(cycles)")
    Associations.removeAll(from: view)
    XCTAssertEqual(cycleDescriptions(from: view), [])
  }

  func testAssociations_ownerCycleBroken_releasesTheSideTableEntry() {
    weak var weakValue: Node?
    do {
      let owner = Node("owner")
      let value = Node("value")
      weakValue = value
      value.handler = { print(owner.name) }
      Associations.set(value, on: owner, key: "cycle")
      value.handler = nil  // break the cycle: the owner dies, and with it the association
    }
    XCTAssertNil(weakValue)
  }

  func testAssociations_concurrentUse_isThreadSafe() {
    nonisolated(unsafe) let owners = (0..<64).map { _ in escaping(Leaf()) }
    DispatchQueue.concurrentPerform(iterations: 8) { worker in
      for round in 0..<2_000 {
        let owner = owners[(round * 7 + worker) % owners.count]
        switch round % 4 {
        case 0: Associations.set(Leaf(), on: owner, key: "k\(worker % 3)")
        case 1: _ = Associations.value(on: owner, key: "k\(worker % 3)")
        case 2: Associations.set(Leaf(), on: Leaf(), key: "temporary")  // owner dies at once
        default: Associations.removeAll(from: owner)
        }
      }
    }
    for owner in owners { Associations.removeAll(from: owner) }
    for owner in owners { XCTAssertNil(Associations.value(on: owner, key: "k0")) }
  }
}
