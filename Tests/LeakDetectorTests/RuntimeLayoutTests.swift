import CLeakRuntime
import HeapGraph
import LeakDetector
import XCTest

/// The layouts of the runtime's structures (`CLeakRuntime`'s layout headers), read through their
/// accessors from C and from Swift, and the start-up check built on them.
final class RuntimeLayoutTests: XCTestCase {
  // MARK: - The start-up check

  func testLayoutCheck_thisRuntime_matchesEveryFact() {
    let facts = RuntimeLayoutCheck.facts()
    XCTAssertGreaterThanOrEqual(facts.count, 10)
    for fact in facts {
      XCTAssertTrue(fact.matches, "\(fact.name): expected \(fact.expected), found \(fact.found)")
    }
    XCTAssertNil(RuntimeLayoutCheck.mismatch)
    XCTAssertNil(RuntimeLayoutCheck.failure)
  }

  func testLayoutCheck_wrongExpectation_reportsTheMismatchByName() throws {
    var facts = RuntimeLayoutCheck.facts()
    let index = try XCTUnwrap(facts.firstIndex { $0.name == "class metadata's superclass" })
    facts[index].expected = "0x8"

    let mismatch = try XCTUnwrap(RuntimeLayoutCheck.firstMismatch(in: facts))

    XCTAssertEqual(mismatch.name, "class metadata's superclass")
    let diagnostic = RuntimeLayoutCheck.diagnostic(mismatch)
    XCTAssertTrue(diagnostic.contains("class metadata's superclass is \(mismatch.found), expected 0x8"), diagnostic)
    XCTAssertTrue(diagnostic.hasSuffix("nothing is captured or tracked"), diagnostic)
  }

  // MARK: - Accessors

  func testClassMetadata_ofAKnownClass_readsSuperclassDescriptorAndFields() {
    let metadata = UInt(bitPattern: unsafeBitCast(LayoutSubject.self, to: Int.self))
    let base = UInt(bitPattern: unsafeBitCast(LayoutSubjectBase.self, to: Int.self))
    let header = MemoryLayout<cleak_heap_object>.size
    let word = MemoryLayout<Int>.size

    let subject = ClassMetadata(address: metadata)

    XCTAssertEqual(subject.superclass?.address, base)
    XCTAssertEqual(cleak_superclass(metadata), base, "C reads the same superclass")
    XCTAssertNotNil(subject.classDescriptor)
    XCTAssertEqual(cleak_class_descriptor(metadata), subject.classDescriptor, "C reads the same descriptor")
    XCTAssertEqual(Int(cleak_class_instance_size(metadata)), header + 3 * word)
    XCTAssertEqual(subject.name, "LayoutSubject")
    XCTAssertEqual(subject.fieldNames, ["count", "next"])
    XCTAssertEqual(subject.fieldOffsets, [header + word, header + 2 * word])
    XCTAssertEqual(subject.superclass?.fieldNames, ["label"])
    XCTAssertEqual(HeapObjectKind.of(kindWord: cleak_metadata_kind(metadata)), .classInstance)
  }

  func testClassMetadata_ofAWordThatIsNoMetadata_readsNothing() {
    let pointer = UnsafeMutablePointer<UInt>.allocate(capacity: 8)
    defer { pointer.deallocate() }
    pointer.initialize(repeating: 0, count: 8)

    let garbage = ClassMetadata(address: UInt(bitPattern: pointer))

    XCTAssertNil(garbage.classDescriptor)
    XCTAssertNil(garbage.name)
    XCTAssertNil(garbage.fieldOffsets)
    XCTAssertNil(ClassMetadata(address: 0x10).superclass)
  }

  func testMetadataKinds_nameEachHeapObjectKind() {
    XCTAssertEqual(HeapObjectKind.of(kindWord: cleak_metadata_kind_heap_local_variable), .closureContext)
    XCTAssertEqual(HeapObjectKind.of(kindWord: cleak_metadata_kind_heap_generic_local_variable), .box)
    XCTAssertEqual(HeapObjectKind.of(kindWord: cleak_metadata_kind_task), .task)
    XCTAssertEqual(HeapObjectKind.of(kindWord: cleak_metadata_kind_last_enumerated + 1), .classInstance)
    XCTAssertNil(HeapObjectKind.of(kindWord: cleak_metadata_kind_last_enumerated))
  }

  func testSideTable_appearsWithTheFirstWeakReference_andPointsBackToTheObject() {
    let object = LayoutSubject()
    let address = UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
    XCTAssertEqual(cleak_side_table_of(address), 0)

    weak let weakObject = object
    let sideTable = cleak_side_table_of(address)

    XCTAssertNotEqual(sideTable, 0)
    XCTAssertEqual(MemoryReader.read(\cleak_side_table_entry.object, of: sideTable), address)
    XCTAssertTrue(weakObject === object)
  }

  func testSparePointerBits_clearedFromAReferenceWord() {
    let object = LayoutSubject()
    let address = UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())

    XCTAssertEqual(address & cleak_spare_pointer_bits, 0, "a live object's address has no spare bits set")
    XCTAssertEqual(cleak_reference_in_word(address | cleak_spare_pointer_bits), address)
    withExtendedLifetime(object) {}
  }

  func testMemoryReaderRead_unreadableBase_returnsNil() {
    XCTAssertNil(MemoryReader.read(\cleak_class_metadata.superclass, of: 0x10))
    XCTAssertNil(MemoryReader.readRelativePointer(\cleak_class_descriptor_layout.name, of: 0x10))
  }

  // MARK: - Standard collections

  func testStandardCollection_recognisesValueAndStorageNames() {
    XCTAssertEqual(StandardCollection(valueTypeName: "Swift.Array<Feed>"), .array)
    XCTAssertEqual(StandardCollection(valueTypeName: "Swift.ContiguousArray<Feed>"), .array)
    XCTAssertEqual(StandardCollection(valueTypeName: "Swift.Dictionary<Swift.String, Feed>"), .dictionary)
    XCTAssertEqual(StandardCollection(valueTypeName: "Swift.Set<Feed>"), .set)
    XCTAssertNil(StandardCollection(valueTypeName: "Swift.ArraySlice<Feed>"))
    XCTAssertNil(StandardCollection(valueTypeName: "MyApp.Array<Feed>"))
    XCTAssertEqual(StandardCollection(storageClassName: "Swift._ContiguousArrayStorage<Feed>"), .array)
    XCTAssertEqual(StandardCollection(storageClassName: "Swift._DictionaryStorage<Swift.Int, Feed>"), .dictionary)
    XCTAssertEqual(StandardCollection(storageClassName: "Swift._SetStorage<Feed>"), .set)
    XCTAssertNil(StandardCollection(storageClassName: "Swift.__EmptyDictionarySingleton"))
  }
}

private class LayoutSubjectBase {
  var label = 0
}

private final class LayoutSubject: LayoutSubjectBase {
  var count = 0
  weak var next: LayoutSubject?
}
