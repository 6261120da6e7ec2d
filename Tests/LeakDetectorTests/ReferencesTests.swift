import LeakDetector
import XCTest

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What `references(of:)` reads from live objects: labels, ownership and targets.
final class ReferencesTests: XCTestCase {
  func testReferences_everyKindOfStoredProperty_areLabelledWithTheirOwnership() {
    let other = escaping(Leaf())
    let object = escaping(Everything(other: other))
    let reflection = reflect(object)
    XCTAssertEqual(unqualified(reflection.typeName), "Everything")
    XCTAssertEqual(reflection.kind, .classInstance)
    XCTAssertEqual(reflection.diagnostics, [])
    XCTAssertEqual(
      summary(reflection.references),
      [
        "strong strong Leaf",
        "weakLeaf weak Leaf",
        "unownedLeaf unowned Leaf",
        "unsafeLeaf unmanaged Leaf",
        "optional strong Leaf",
        "pair.strong strong Leaf",
        "pair.weakLeaf weak Leaf",
        "tuple.0 strong Leaf",
        "state.failed.0 strong Leaf",
        "tree.node.0.leaf strong Leaf",
        "tree.node.1.leaf strong Leaf",
        "existential strong Leaf",
        "classExistential strong Leaf",
        "anyValue.strong strong Leaf",
        "anyObject strong Leaf",
        "error.culprit strong Leaf",
        "array[0] strong Leaf",
        "array[1] strong Leaf",
        "contiguous[0] strong Leaf",
        "dictionary[\"first\"] strong Leaf",
        "set[element].leaf strong Leaf",
        "nested[7][0] strong Leaf",
        "inherited strong Leaf",
      ])
    let weak = reflection.references.first { $0.label == "weakLeaf" }
    XCTAssertEqual(weak?.targetAddress, address(of: other))
    XCTAssertEqual(reflection.references.first { $0.label == "unownedLeaf" }?.targetAddress, address(of: other))
    XCTAssertEqual(reflection.references.first { $0.label == "array[1]" }?.targetAddress, address(of: object.array[1]))
  }

  func testReferences_nilAndEmptyValues_giveNoReferences() {
    let object = escaping(Everything(other: escaping(Leaf())))
    object.optional = nil
    object.weakLeaf = nil
    object.state = .idle
    object.error = nil
    object.array = []
    object.dictionary = [:]
    object.set = []
    object.nested = [:]
    let labels = references(of: object).map(\.label)
    for gone in ["optional", "weakLeaf", "state", "error", "array", "dictionary", "set", "nested"] {
      XCTAssertFalse(labels.contains { $0.hasPrefix(gone) }, "\(gone) should have no references: \(labels)")
    }
  }

  func testReferences_dictionaryWithObjectKeys_labelsKeysAndValues() {
    final class Registry {
      var byOwner: [Wrapper: Leaf] = [:]
    }
    let registry = escaping(Registry())
    let key = escaping(Leaf())
    registry.byOwner[Wrapper(key)] = Leaf()
    XCTAssertEqual(summary(references(of: registry)), ["byOwner[value] strong Leaf", "byOwner[key].leaf strong Leaf"])
  }

  func testReferences_enumWhosePayloadIsAGenericEnum_readsTheActiveCase() {
    let request = escaping(Request())
    let error = ClassError()
    request.state = .finished(.failure(error))
    XCTAssertEqual(summary(references(of: request)), ["state.finished.failure strong ClassError"])
    XCTAssertEqual(references(of: request).first?.targetAddress, address(of: error))
    request.state = .finished(.success([1, 2, 3]))
    XCTAssertEqual(summary(references(of: request)), [], "bytes hold no references")
    request.state = .finished(.failure(BadThing(culprit: Leaf())))
    XCTAssertEqual(summary(references(of: request)), ["state.finished.failure.culprit strong Leaf"])
    request.state = .pending(Leaf())
    XCTAssertEqual(summary(references(of: request)), ["state.pending strong Leaf"])
    request.typed = .success(Leaf())
    XCTAssertEqual(summary(references(of: request)), ["state.pending strong Leaf", "typed.success strong Leaf"])
    XCTAssertEqual(reflect(request).diagnostics, [])
  }

  func testReferences_indirectCase_isReadThroughItsBox() {
    let request = escaping(Request())
    request.state = .retrying(Leaf(), after: .pending(Leaf()))
    XCTAssertEqual(summary(references(of: request)), ["state.retrying.0 strong Leaf", "state.retrying.after.pending strong Leaf"])
  }

  func testReferences_labelledTuplesAndLazyProperties_keepTheirNames() {
    let request = escaping(Request())
    request.steps = [(Leaf(), 1)]
    _ = request.formatter
    XCTAssertEqual(summary(references(of: request)), ["steps[0].request strong Leaf", "formatter strong Leaf"])
  }

  func testReferences_genericClasses_readTheirSpecializedFields() {
    let ofLeaf = escaping(GenericHolder(Leaf()))
    XCTAssertEqual(summary(references(of: ofLeaf)), ["value strong Leaf", "extra strong Leaf"])
    let ofPair = escaping(GenericHolder(Pair(strong: Leaf(), weakLeaf: nil)))
    XCTAssertEqual(summary(references(of: ofPair)), ["value.strong strong Leaf", "extra strong Leaf"])
    let ofAny = escaping(GenericHolder<Any>(Leaf()))
    XCTAssertEqual(summary(references(of: ofAny)), ["value strong Leaf", "extra strong Leaf"])
    let ofInt = escaping(GenericHolder(42))
    XCTAssertEqual(summary(references(of: ofInt)), ["extra strong Leaf"])
    XCTAssertEqual(unqualified(reflect(ofInt).typeName), "GenericHolder<Swift.Int>")
  }

  func testReferences_subclass_includesInheritedFieldsAfterItsOwn() {
    let dog = escaping(Dog())
    dog.owner = Leaf()
    XCTAssertEqual(summary(references(of: dog)), ["toy strong Leaf", "owner strong Leaf"])
  }

  func testReferences_actor_skipsItsRuntimeStorage() {
    let counter = escaping(Counter())
    XCTAssertEqual(summary(references(of: counter)), ["leaf strong Leaf"])
  }

  func testReferences_closureCapturingSelfStrongly_pointsAtSelfOrItsContext() {
    let feed = escaping(Feed())
    let leaf = escaping(Leaf())
    feed.bindWithOther(leaf)
    let closure = references(of: feed).first { $0.label == "onUpdate" }
    XCTAssertEqual(closure?.ownership, .strong)
    XCTAssertEqual(closure?.targetKind, .closureContext)
    XCTAssertEqual(closure.map { unqualified($0.targetTypeName) }, "closure #1 in Feed.bindWithOther(Leaf)")
  }

  func testReferences_closureCaptures_haveTheirOwnership() throws {
    for (bind, expected) in [
      ({ (feed: Feed) in feed.bindWeakly() }, ["capture #0: Feed? weak Feed"]),
      ({ $0.bindUnowned() }, ["capture #0: Feed unowned Feed"]),
      ({ $0.bindWithOther(escaping(Leaf())) }, ["capture #0: Feed strong Feed", "capture #1: Leaf strong Leaf"]),
    ] as [((Feed) -> Void, [String])] {
      let feed = escaping(Feed())
      bind(feed)
      let context = try XCTUnwrap(LiveObject(references(of: feed).first { $0.label == "onUpdate" }))
      XCTAssertEqual(summary(context.references), expected)
      XCTAssertEqual(context.references.first?.targetAddress, address(of: feed))
    }
  }

  func testReferences_capturedVar_livesInABoxNode() throws {
    let feed = escaping(Feed())
    feed.bindCounter()
    let context = try XCTUnwrap(LiveObject(references(of: feed).first { $0.label == "counterHandler" }))
    let box = try XCTUnwrap(context.references.first { $0.targetKind == .box })
    XCTAssertEqual(box.label, "capture #0: box<Int>")
    XCTAssertEqual(box.targetTypeName, "box<Swift.Int>")
    XCTAssertEqual(summary(context.references).last, "capture #1: Feed strong Feed")
  }

  func testReferences_closureStoredAsAny_isFollowedThroughItsThunk() throws {
    let feed = escaping(Feed())
    feed.bindAsAny()
    let thunk = try XCTUnwrap(references(of: feed).first { $0.label == "erased" })
    XCTAssertEqual(thunk.targetTypeName, "reabstraction thunk of closure #1 in LeakDetectorTests.Feed.bindAsAny()")
    let inner = try XCTUnwrap(LiveObject(thunk)).references
    XCTAssertEqual(inner.map(\.targetAddress), [address(of: feed)])
  }

  func testReferences_foundationObjects_doNotCrash() {
    let objects: [AnyObject] = [
      JSONEncoder(), DateFormatter(), NotificationCenter.default, OperationQueue(), NSMutableArray(array: [1, 2]),
      NSURLComponents(string: "https://example.com/x?y=1")!, URLSession.shared, NSError(domain: "d", code: 1),
      Thread.current, ProcessInfo.processInfo, NSLock(), NSString(string: "text"), Bundle.main, FileManager.default,
    ]
    for object in objects {
      let reflection = reflect(object)
      XCTAssertFalse(reflection.typeName.isEmpty)
    }
  }
}

/// A target of a reference, re-read as an object of its own.
struct LiveObject {
  var references: [ObjectReference]

  init?(_ reference: ObjectReference?) {
    guard let reference else { return nil }
    let object = Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: reference.targetAddress)!).takeUnretainedValue()
    references = reflect(object).references
  }
}

/// Classes two and three levels below their root class, with stored properties of odd sizes at
/// every level: the reflection library's own offsets were a word off for them (an XCTestCase
/// subclass's fields pointed to the next field's object).
class DeepRoot {
  var count = 0
  var root: AnyObject?
}

class DeepMiddle: DeepRoot {
  var flag = false
}

final class DeepLeaf: DeepMiddle {
  let first = FirstTarget()
  let second = SecondTarget()
}

final class FirstTarget {}
final class SecondTarget {}

final class DeepClassTests: XCTestCase {
  func testReferences_classThreeLevelsDeep_readsEachFieldAtTheRuntimesOffset() {
    let object = DeepLeaf()
    object.root = FirstTarget()
    let found = withExtendedLifetime(object) {
      references(of: object).map { "\($0.label) \($0.targetTypeName.split(separator: ".").last ?? "")" }
    }
    XCTAssertEqual(found, ["first FirstTarget", "second SecondTarget", "root FirstTarget"])
  }
}
