import CLeakRuntime
import HeapGraph

/// The start-up check of the Swift runtime's layouts this library reads (the layout headers of
/// `CLeakRuntime`, read from Swift 6.3.1): before the first capture or tracking start, each
/// fact that can be checked at run time is read from values whose shape is known here (a class
/// of this library, a fresh object, a `String`, an `Array`) and compared with what it must be.
///
/// When a fact does not match, capture and tracking stay off, with one diagnostic that names
/// it, instead of misreading memory:
///
/// ```text
/// the Swift runtime's layouts are not the ones this build reads (Swift 6.3.1): class metadata's superclass is 0x0, expected 0x55d0c8a1b2c0; nothing is captured or tracked
/// ```
package enum RuntimeLayoutCheck {
  /// One layout fact: what it is, the value it must have, and the value read.
  package struct Fact: Sendable, Equatable {
    package var name: String
    package var expected: String
    package var found: String

    package var matches: Bool { expected == found }
  }

  /// The first fact of this process's runtime that does not match, or `nil`; checked once.
  package static let mismatch: Fact? = firstMismatch(in: probesThisProcess ? facts() : [])

  /// Whether the checks probe this process: not when the capture reads a memory image, whose
  /// runtime is not this one (its concurrency runtime states its own layout version, which the
  /// task reader checks; the other layouts are this toolchain's, and the image's reads cannot fault).
  static var probesThisProcess: Bool { !cleak_reads_memory_image() }

  /// The diagnostic that says why capture and tracking are off, or `nil` when they are not.
  package static var failure: String? { mismatch.map(diagnostic) }

  /// A capture's outcome when the layouts do not match: no result, the diagnostic, and the
  /// failure; `nil` when capture may run.
  static func refusedCapture<Result>() -> CaptureProcess.Outcome<Result>? {
    mismatch.map { mismatch in
      let failure = CaptureFailure.runtimeLayoutMismatch(mismatch)
      return CaptureProcess.Outcome(result: nil, diagnostics: [failure.diagnostic], failure: failure)
    }
  }

  /// The first of `facts` that does not match.
  package static func firstMismatch(in facts: [Fact]) -> Fact? {
    facts.first { !$0.matches }
  }

  /// The diagnostic for the fact `mismatch`.
  package static func diagnostic(_ mismatch: Fact) -> String {
    "the Swift runtime's layouts are not the ones this build reads (Swift 6.3.1): \(mismatch.name) is \(mismatch.found),"
      + " expected \(mismatch.expected); nothing is captured or tracked"
  }

  /// Every fact, read from this process's runtime now.
  package static func facts() -> [Fact] {
    classMetadataFacts() + heapObjectFacts() + standardLibraryFacts()
  }

  // MARK: - The facts

  /// Class metadata and its nominal type descriptor, read from ``RuntimeLayoutProbe``'s.
  private static func classMetadataFacts() -> [Fact] {
    let metadata = address(of: RuntimeLayoutProbe.self)
    let headerSize = MemoryLayout<cleak_heap_object>.size
    let wordSize = MemoryLayout<Int>.size
    let probe = ClassMetadata(address: metadata)
    return [
      Fact(name: "class metadata's kind", expected: hex(cleak_metadata_kind_class), found: hex(MemoryReader.readWord(at: metadata))),
      Fact(
        name: "class metadata's superclass", expected: hex(address(of: RuntimeLayoutProbeBase.self)),
        found: hex(MemoryReader.read(\cleak_class_metadata.superclass, of: metadata))),
      Fact(
        name: "class metadata's instance size", expected: "\(headerSize + 2 * wordSize)",
        found: text(MemoryReader.read(\cleak_class_metadata.instanceSize, of: metadata))),
      Fact(name: "the class descriptor's name", expected: "RuntimeLayoutProbe", found: probe.name ?? "nothing readable"),
      Fact(name: "the field descriptor's names", expected: "[\"value\"]", found: text(probe.fieldNames)),
      Fact(name: "the field offset vector", expected: "[\(headerSize + wordSize)]", found: text(probe.fieldOffsets)),
    ]
  }

  /// The reference-count word of a fresh object, and its side table once a weak reference
  /// needs one.
  private static func heapObjectFacts() -> [Fact] {
    let object = RuntimeLayoutProbe()
    let address = UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
    let before = cleak_side_table_of(address)
    let holder = WeakHolder(object)
    let sideTable = cleak_side_table_of(address)
    let owner = sideTable == 0 ? nil : MemoryReader.read(\cleak_side_table_entry.object, of: sideTable)
    let target = holder.target.map { UInt(bitPattern: Unmanaged.passUnretained($0).toOpaque()) }
    return withExtendedLifetime(object) {
      [
        Fact(name: "a fresh object's side table", expected: hex(0), found: hex(before)),
        Fact(name: "a weak reference's target", expected: hex(address), found: hex(target)),
        Fact(name: "the object of a side table", expected: hex(address), found: hex(owner)),
      ]
    }
  }

  /// A `String`'s two words and its native storage, and an `Array`'s storage.
  private static func standardLibraryFacts() -> [Fact] {
    var small = String(repeating: "a", count: 5)
    var large = String(repeating: "layout", count: 8)
    let smallRead = withUnsafeBytes(of: &small) { RuntimeReflector.State.stringContents(at: UInt(bitPattern: $0.baseAddress)) }
    let largeRead = withUnsafeBytes(of: &large) { RuntimeReflector.State.stringContents(at: UInt(bitPattern: $0.baseAddress)) }
    let numbers = Array(repeating: 7, count: 3)
    let storage = numbers.withUnsafeBufferPointer { buffer in
      UInt(bitPattern: buffer.baseAddress) &- UInt(MemoryLayout<cleak_array_storage>.size)
    }
    let count = MemoryReader.read(\cleak_array_storage.count, of: storage)
    let storageWord = withUnsafeBytes(of: numbers) { $0.load(as: UInt.self) }
    return [
      Fact(name: "a small string's bytes", expected: small, found: smallRead ?? "nothing readable"),
      Fact(name: "a native string's bytes", expected: large, found: largeRead ?? "nothing readable"),
      Fact(name: "the start of an array's elements in its storage", expected: hex(storageWord), found: hex(storage)),
      Fact(name: "an array's count", expected: "\(numbers.count)", found: text(count)),
    ] + ownedStorageFacts()
  }

  /// The storage a value owns (``OwnedStorage``): the empty array is static, and the sizes the
  /// layouts give for an array's and a native string's storage are those of their malloc blocks.
  /// (A dictionary's are read through reflection, which this check does not start.)
  private static func ownedStorageFacts() -> [Fact] {
    let empty: [Int] = []
    let (numbers, text) = heapValues()
    func fact(_ name: String, _ owned: OwnedStorage?, block: UInt) -> Fact {
      let usable = cleak_malloc_block_size(block)
      let expected = "its malloc block (\(usable) usable bytes)"
      let found = owned.map { $0.bytes <= usable && usable - $0.bytes < 32 ? expected : "\($0.bytes) bytes, in a block of \(usable)" }
      return Fact(name: "the size of \(name)", expected: expected, found: found ?? "nothing readable")
    }
    return withExtendedLifetime((empty, numbers)) {
      let emptyStorage = withUnsafeBytes(of: empty) { $0.load(as: UInt.self) }
      let arrayStorage = withUnsafeBytes(of: numbers) { $0.load(as: UInt.self) }
      return [
        Fact(
          name: "the empty array's storage", expected: "static",
          found: StandardCollection.heapInstanceSize(of: emptyStorage) == nil ? "static" : "a heap block"),
        fact(
          "an array's storage", StandardCollection.arrayStorage(at: arrayStorage, elementStride: MemoryLayout<Int>.stride),
          block: arrayStorage),
      ]
    }
      + withUnsafeBytes(of: text) { value in
        let address = UInt(bitPattern: value.baseAddress)
        let storage = UInt(value.load(as: cleak_string.self).object & cleak_string_object_address_mask)
        return [fact("a native string's storage", StringStorage.owned(byStringAt: address) { _ in false }, block: storage)]
      }
  }

  /// An array and a native string whose storage is on the heap: made where the caller's
  /// optimizer cannot see, so never promoted to its stack (the check asks malloc about them).
  @inline(never)
  private static func heapValues() -> (numbers: [Int], text: String) {
    var text = String(repeating: "probe", count: 20)
    text.append("!")
    return (Array(0..<20), text)
  }

  // MARK: - Helpers

  private static func address(of type: AnyClass) -> UInt {
    UInt(bitPattern: unsafeBitCast(type, to: Int.self))
  }

  private static func hex(_ value: UInt?) -> String {
    value.map { "0x" + String($0, radix: 16) } ?? "nothing readable"
  }

  private static func text<Value>(_ value: Value?) -> String {
    value.map { "\($0)" } ?? "nothing readable"
  }
}

/// The superclass of ``RuntimeLayoutProbe``, with one stored property.
class RuntimeLayoutProbeBase {
  var base = 1
}

/// A class whose layout ``RuntimeLayoutCheck`` knows: a superclass of its own, one stored
/// property after the superclass's.
final class RuntimeLayoutProbe: RuntimeLayoutProbeBase {
  var value = 2
}

/// Holds a weak reference, which gives its target a side table.
private final class WeakHolder {
  weak var target: AnyObject?

  @inline(never) init(_ target: AnyObject) {
    self.target = target
  }
}
