// reflection-bench: how fast LeakDetector reads references of live objects, against a Mirror walk.
//
// Builds 100,000 live objects of 20 types (stored properties of every kind, closures,
// collections, enums, generics), then measures, in one process:
// - the cold cost of the first `references(of:)` per type (layouts computed from metadata);
// - warm throughput of `references(of:)` over every object (objects per second);
// - a `Mirror`-based walk of the same objects (the peer: it cannot tell weak from strong);
// - `RetainCycleDetector.findRetainCycles()` from one candidate that reaches every object.
// Prints one JSON object.

import LeakBenchmarkSupport
import LeakDetector

#if canImport(Glibc)
  import Glibc
#endif

final class Profile {
  var name = "profile"
  var friends: [Profile] = []
  weak var best: Profile?
  var avatar: Image?
  var onChange: (() -> Void)?
  var tags: [String: Tag] = [:]
  var group: Cell<Int>?
}

final class Image {
  var pixels: [UInt8] = [1, 2, 3]
  var cache: Cache?
  var state: LoadState = .idle
}

final class Tag {
  var label = "tag"
  var owner: Profile?
  var note: Note?
}

final class Cache {
  var entries: [Int: Image] = [:]
  var evict: ((Int) -> Void)?
}

final class Task {
  var callback: (() -> Void)?
  unowned let owner: Profile
  init(owner: Profile) { self.owner = owner }
}

enum LoadState {
  case idle
  case loading(Task)
  case done(Image, size: Int)
}

struct Note {
  var text = "note"
  var author: Profile?
  weak var reviewer: Profile?
}

final class Cell<Value> {
  var value: Value
  var next: Cell<Value>?
  init(_ value: Value) { self.value = value }
}

class Account {
  var owner: Profile?
  var history: [Entry] = []
}

final class PremiumAccount: Account {
  var perks: Set<String> = ["x"]
  var manager: Profile?
}

final class Entry {
  var amount = 0
  var related: Any?
}

actor Store {
  var profiles: [Profile] = []
}

/// Creates one object of each type, linked to `profile`.
@inline(never)
func makeObjects(count: Int) -> (root: Cell<[AnyObject]>, all: [AnyObject]) {
  var all: [AnyObject] = []
  var profiles: [Profile] = []
  for index in 0..<count / 20 {
    let profile = Profile()
    profiles.append(profile)
    let image = Image()
    let cache = Cache()
    cache.entries[index] = image
    cache.evict = { key in print(key, cache.entries.count) }
    image.cache = cache
    let task = Task(owner: profile)
    task.callback = { print(profile.name, image.pixels.count) }
    image.state = index % 2 == 0 ? .loading(task) : .done(image, size: 3)
    profile.avatar = image
    let tag = Tag()
    tag.owner = profile
    tag.note = Note(author: profile, reviewer: profile)
    profile.tags["t\(index % 7)"] = tag
    profile.onChange = { print(tag.label) }
    let cell = Cell(index)
    cell.next = Cell(index + 1)
    profile.group = cell
    let account: Account = index % 3 == 0 ? PremiumAccount() : Account()
    account.owner = profile
    let entry = Entry()
    entry.related = index % 2 == 0 ? tag : "text"
    account.history = [entry]
    let text = Cell("label")
    let pair = Cell<(Tag, Int)>((tag, 1))
    let store = Store()
    all += [profile, image, cache, task, tag, cell, cell.next!, account, entry, text, pair, store]
    all += [
      Cell(profile), Cell([tag]), Cell(["a": image]), Cell(tag.note!), Cell(LoadState.done(image, size: 3)),
      Cell<Any>(tag), Cell<(() -> Void)?>(profile.onChange), Cell<Set<Int>>([index]),
    ]
  }
  for (index, profile) in profiles.enumerated() {
    profile.friends = [profiles[(index * 7 + 1) % profiles.count], profiles[(index * 13 + 5) % profiles.count]]
    profile.best = profiles[(index + 1) % profiles.count]
  }
  let root = Cell<[AnyObject]>(all)
  return (root, all)
}

func seconds(_ body: () -> Void) -> Double {
  let start = ContinuousClock.now
  body()
  let elapsed = ContinuousClock.now - start
  return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

let objectCount = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 100_000 : 100_000
let (root, objects) = makeObjects(count: objectCount)

// Cold: the first reflection of each type (the very first call also creates the reflection context).
var firstOfType: [ObjectIdentifier: AnyObject] = [:]
for object in objects where firstOfType[ObjectIdentifier(type(of: object))] == nil {
  firstOfType[ObjectIdentifier(type(of: object))] = object
}
/// One-time, process-wide set-up: the reflection context and the symbolicator (libdw session).
let contextSeconds = seconds {
  _ = references(of: Cell(0))
  _ = Symbolicator.shared.frame(at: UInt(bitPattern: dlsym(nil, "main")))
}
var coldSeconds: [Double] = []
var coldByType: [(String, Double)] = []
for object in firstOfType.values.sorted(by: { "\(type(of: $0))" < "\(type(of: $1))" }) {
  let elapsed = seconds { _ = references(of: object) }
  coldSeconds.append(elapsed)
  coldByType.append(("\(type(of: object))", elapsed))
}
coldSeconds.sort()
if CommandLine.arguments.contains("--cold-detail") {
  for (name, elapsed) in coldByType { print("cold \(name): \((elapsed * 1_000_000).rounded()) µs") }
}

// Warm: every object, best of 3.
var referenceCount = 0
var warmBest = Double.infinity
for _ in 0..<3 {
  var count = 0
  let elapsed = seconds { for object in objects { count += references(of: object).count } }
  warmBest = min(warmBest, elapsed)
  referenceCount = count
}

var mirrorBest = Double.infinity
var mirrorCount = 0
for _ in 0..<3 {
  var count = 0
  let elapsed = seconds { for object in objects { count += mirrorReferenceCount(of: object) } }
  mirrorBest = min(mirrorBest, elapsed)
  mirrorCount = count
}

let detector = RetainCycleDetector()
detector.addCandidate(root)
var report: CycleReport?
let detectorSeconds = seconds { report = detector.findRetainCycleReport() }

func rounded(_ value: Double, _ places: Double = 1000) -> Double { (value * places).rounded() / places }
print(
  """
  {"objects": \(objects.count), "types": \(firstOfType.count), "references": \(referenceCount), \
  "oneTimeSetupMilliseconds": \(rounded(contextSeconds * 1000)), \
  "coldMillisecondsPerType": {"median": \(rounded(coldSeconds[coldSeconds.count / 2] * 1000)), "max": \(rounded(coldSeconds.last! * 1000))}, \
  "warmObjectsPerSecond": \(Int(Double(objects.count) / warmBest)), \
  "mirrorObjectsPerSecond": \(Int(Double(objects.count) / mirrorBest)), "mirrorReferences": \(mirrorCount), \
  "speedupOverMirror": \(rounded(mirrorBest / warmBest, 10)), \
  "detectorSeconds": \(rounded(detectorSeconds)), "detectorObjects": \(report?.objectCount ?? 0), \
  "detectorCyclesFound": \(report?.foundCycleCount ?? 0), "detectorComponents": \(report?.components.count ?? 0)}
  """)
withExtendedLifetime(root) {}
