import HeapGraph
import LeakDetector
import XCTest

final class PayloadSession {
  var payload: [UInt8]
  init(payload: [UInt8]) { self.payload = payload }
}

final class CacheEntry {
  var series: [String: [Int]]
  init(series: [String: [Int]]) { self.series = series }
}

final class Titled {
  var title: String
  init(title: String) { self.title = title }
}

final class Tags {
  var ids: Set<Int>
  init(ids: Set<Int>) { self.ids = ids }
}

final class Excerpt {
  var text: Substring
  init(text: Substring) { self.text = text }
}

/// A struct with an array and a string, held in every shape of nesting.
struct Envelope {
  var body: [UInt8]
  var title: String
}

enum Attachment {
  case bytes([UInt8])
  case text(String)
  case none
}

final class Mailbox {
  var envelope: Envelope
  var attachment: Attachment
  var spare: [UInt8]?
  var archive: [Envelope]
  var pages: [[Int]]
  init(envelope: Envelope, attachment: Attachment, spare: [UInt8]?, archive: [Envelope], pages: [[Int]]) {
    self.envelope = envelope
    self.attachment = attachment
    self.spare = spare
    self.archive = archive
    self.pages = pages
  }
}

/// A live capture's object sizes include the storage of the collections and strings an object
/// owns: the native storage of arrays, dictionaries and sets and strings' heap buffers, at any
/// depth of nesting, each block counted once, static empty singletons not at all.
final class OwnedStorageTests: XCTestCase {
  override func setUp() {
    AllocationTracker.start()
  }

  override func tearDown() {
    AllocationTracker.stop()
  }

  /// The snapshot size and the tracker's size (the object's own allocation) of each object.
  @inline(never)
  private func sizes(of objects: [AnyObject], generation: Int) -> [(snapshot: Int, own: Int)] {
    let snapshot = AllocationTracker.snapshot(inGeneration: generation)
    let tracked = AllocationTracker.liveObjects(inGeneration: generation)
    return objects.map { object in
      let address = UInt64(address(of: object))
      let own = tracked.first { UInt64($0.address) == address }?.size ?? -1
      return (snapshot.objects.first { $0.address == address }?.size ?? -1, own)
    }
  }

  func testSize_includesAnArraysStorage() {
    let generation = AllocationTracker.markGeneration()
    let session = escaping(PayloadSession(payload: [UInt8](repeating: 7, count: 256)))
    let (size, own) = sizes(of: [session], generation: generation)[0]
    XCTAssertGreaterThan(own, 16)
    XCTAssertGreaterThanOrEqual(size, own + 32 + 256, "the storage's header and its 256 elements")
    XCTAssertLessThanOrEqual(size, own + 32 + 256 + 64, "no more than the allocation's rounding")
    XCTAssertEqual(reflect(session).ownedStorage.map(\.bytes).reduce(0, +), size - own, "in-process reflection agrees")
  }

  func testSize_includesADictionarysStorageAndEachInnerArray() {
    let generation = AllocationTracker.markGeneration()
    // Not a literal `[1, 2, 3]`: optimized code makes that a static object, which counts nothing.
    let full = escaping(CacheEntry(series: ["a": Array(repeating: 1, count: 3), "b": Array(0..<100)]))
    let hollow = escaping(CacheEntry(series: ["a": [], "b": []]))
    let measured = sizes(of: [full, hollow], generation: generation)
    let (fullSize, own) = measured[0]
    let hollowSize = measured[1].snapshot
    // Two buckets of a String key (16 bytes) and an array (8 bytes), a bitmap, the header.
    XCTAssertGreaterThanOrEqual(hollowSize, own + 64 + 8 + 2 * 24, "the dictionary's storage")
    XCTAssertGreaterThanOrEqual(fullSize - hollowSize, (32 + 3 * 8) + (32 + 100 * 8), "each inner array's storage")
    XCTAssertLessThanOrEqual(fullSize - hollowSize, (32 + 3 * 8) + (32 + 100 * 8) + 2 * 64)
  }

  func testSize_includesASetsStorage() {
    let generation = AllocationTracker.markGeneration()
    let tags = escaping(Tags(ids: Set(0..<100)))
    let (size, own) = sizes(of: [tags], generation: generation)[0]
    // 100 elements need 256 buckets of 8 bytes (at most three quarters full), and a bitmap.
    XCTAssertGreaterThanOrEqual(size - own, 32 + 256 * 8 + 256 / 8)
    XCTAssertLessThanOrEqual(size - own, 128 + 256 * 8 + 256 / 8)
  }

  func testSize_countsACopyOnWriteArraySharedByTwoObjectsOnce() {
    let generation = AllocationTracker.markGeneration()
    let shared = [UInt8](repeating: 1, count: 4096)
    let first = escaping(PayloadSession(payload: shared))
    let second = escaping(PayloadSession(payload: shared))
    let measured = sizes(of: [first, second], generation: generation)
    let added = measured.map { $0.snapshot - $0.own }
    XCTAssertEqual(added.filter { $0 == 0 }.count, 1, "one owner counts it, the other nothing: \(added)")
    XCTAssertGreaterThanOrEqual(added.reduce(0, +), 32 + 4096)
    XCTAssertLessThan(added.reduce(0, +), 2 * 4096)
  }

  func testSize_anEmptyArrayAddsNothing_aReservedOneItsCapacity() {
    let generation = AllocationTracker.markGeneration()
    var reserved: [UInt8] = []
    reserved.reserveCapacity(1000)
    let empty = escaping(PayloadSession(payload: []))
    let holding = escaping(PayloadSession(payload: reserved))
    let measured = sizes(of: [empty, holding], generation: generation)
    XCTAssertEqual(measured[0].snapshot, measured[0].own, "the empty singleton is static")
    XCTAssertGreaterThanOrEqual(measured[1].snapshot - measured[1].own, 32 + 1000, "an empty array with capacity is a heap block")
  }

  func testSize_includesALargeNativeStringsBuffer_notASmallOrLiteralOne() {
    let generation = AllocationTracker.markGeneration()
    var text = String(repeating: "storage ", count: 25)  // 200 bytes of UTF-8
    text.append("!")
    let large = escaping(Titled(title: text))
    let small = escaping(Titled(title: String(repeating: "s", count: 15)))
    let literal = escaping(Titled(title: "a literal long enough not to be a small string"))
    let measured = sizes(of: [large, small, literal], generation: generation)
    XCTAssertGreaterThanOrEqual(measured[0].snapshot - measured[0].own, 32 + 201 + 1, "header, bytes, terminator")
    XCTAssertLessThanOrEqual(measured[0].snapshot - measured[0].own, 32 + 201 + 1 + 40)
    XCTAssertEqual(measured[1].snapshot, measured[1].own, "a small string's bytes are inline")
    XCTAssertEqual(measured[2].snapshot, measured[2].own, "a literal's bytes are in the binary")
  }

  func testReflection_ofASubstring_findsItsBaseStringsStorageAndNoProblem() {
    let excerpt = escaping(Excerpt(text: String(repeating: "substring", count: 20).dropFirst(3)))
    let reflection = reflect(excerpt)
    XCTAssertEqual(reflection.diagnostics, [])
    XCTAssertEqual(reflection.ownedStorage.count, 1, "the base string's storage")
    XCTAssertGreaterThanOrEqual(reflection.ownedStorage.first?.bytes ?? 0, 32 + 180)
  }

  func testSize_includesStorageAtEveryDepthOfNesting() {
    let generation = AllocationTracker.markGeneration()
    func title(_ word: String) -> String { String(repeating: word, count: 40) + "." }  // 161 bytes or more
    let mailbox = escaping(
      Mailbox(
        envelope: Envelope(body: [UInt8](repeating: 1, count: 500), title: title("head")),
        attachment: .bytes([UInt8](repeating: 2, count: 700)),
        spare: [UInt8](repeating: 3, count: 300),
        archive: [Envelope(body: [UInt8](repeating: 4, count: 400), title: title("past"))],
        pages: [Array(0..<50), Array(0..<60)]))
    let (size, own) = sizes(of: [mailbox], generation: generation)[0]
    let arrays = [500, 700, 300, 400].map { 32 + $0 } + [32 + 50 * 8, 32 + 60 * 8]
    let strings = 2 * (32 + 161 + 1)
    let archive = 32 + MemoryLayout<Envelope>.stride
    let pages = 32 + 2 * 8
    let expected = arrays.reduce(0, +) + strings + archive + pages
    XCTAssertGreaterThanOrEqual(
      size - own, expected, "a struct's array and string, an enum payload, an optional, an array of structs, an array of arrays")
    XCTAssertLessThanOrEqual(size - own, expected + 10 * 48)

    let text = escaping(
      Mailbox(envelope: Envelope(body: [], title: ""), attachment: .text(title("text")), spare: nil, archive: [], pages: []))
    let (textSize, textOwn) = sizes(of: [text], generation: generation)[0]
    XCTAssertGreaterThanOrEqual(textSize - textOwn, 32 + 161 + 1, "a string in an enum payload")
  }
}
