/// One retain cycle: objects that keep each other alive through strong references.
///
/// Each element names an object and the reference from it to the next element; the last
/// element's reference leads back to the first. The cycle is stored in a canonical rotation, so
/// the same cycle always starts at the same object: the rotation whose sequence of type names is
/// lexicographically smallest, and among equal ones, the one starting at the lowest address
/// (FBRetainCycleDetector's normalisation), except that closure contexts and boxes sort after
/// class instances (by each element's ``Element/kind``), so that a cycle reads from the object
/// that owns the closure.
///
/// ```swift
/// print(cycle)
/// ```
/// ```text
/// MyApp.Feed.onUpdate -> closure #1 in MyApp.Feed.load().capture #0: Feed -> MyApp.Feed
/// ```
public struct RetainCycle: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// An object of the cycle and the strong reference it holds on the next one.
  public struct Element: Sendable, Hashable {
    /// The object's id in the snapshot.
    public var objectID: Int64
    /// The object's type name (a closure context is named by its function).
    public var typeName: String
    /// Whether the object is a class instance, a closure context or a box.
    public var kind: ObjectKind
    /// The object's address in the captured process, when known.
    public var address: UInt64?
    /// The label of the strong reference from this object to the next element, if it has one.
    public var reference: String?
    /// Where the object was allocated, innermost frame first; empty when not captured.
    public var allocationSite: [StackFrame]

    /// Makes an element; `kind` defaults to what `typeName` suggests
    /// (``ObjectKind/inferred(fromTypeName:)``).
    public init(
      objectID: Int64, typeName: String, kind: ObjectKind? = nil, address: UInt64? = nil, reference: String?,
      allocationSite: [StackFrame] = []
    ) {
      self.objectID = objectID
      self.typeName = typeName
      self.kind = kind ?? .inferred(fromTypeName: typeName)
      self.address = address
      self.reference = reference
      self.allocationSite = allocationSite
    }
  }

  /// The objects of the cycle, in canonical rotation.
  public let elements: [Element]
  /// The identity of the cycle's shape: type names and labels, independent of addresses.
  public let fingerprint: Fingerprint

  /// Makes a cycle from its elements in any rotation; the stored rotation is canonical.
  public init(elements: [Element]) {
    precondition(!elements.isEmpty, "RetainCycle: a cycle needs at least one element")
    let count = elements.count
    func rotation(_ start: Int) -> LazyMapSequence<Range<Int>, Element> {
      (0..<count).lazy.map { elements[(start + $0) % count] }
    }
    var best = 0
    for start in 1..<max(count, 1) {
      let candidate = rotation(start).map(\.rotationKey)
      let current = rotation(best).map(\.rotationKey)
      if candidate.lexicographicallyPrecedes(current) {
        best = start
      } else if candidate.elementsEqual(current), Self.startsLower(elements[start], than: elements[best]) {
        best = start
      }
    }
    self.elements = Array(rotation(best))

    // The fingerprint ignores addresses entirely: smallest rotation of (type, label) pairs.
    let canonical = Array(rotation(best))
    let start = Self.addressIndependentStart(of: canonical)
    fingerprint = Fingerprint(
      parts: ["cycle"]
        + (0..<count).flatMap {
          [canonical[(start + $0) % count].typeName, DataLabel.redacted(canonical[(start + $0) % count].reference ?? "")]
        })
  }

  /// Each object's type and its reference to the next, for ``HeapFinding/links``.
  var links: [HeapFinding.Link] { elements.map { HeapFinding.Link(typeName: $0.typeName, reference: $0.reference) } }

  /// The rotation that starts at the smallest sequence of (type, label) pairs, keys' text elided
  /// (``DataLabel``): the same for the same leak in every run, where ``elements`` may start at either of two objects of one type.
  static func addressIndependentStart(of elements: [Element]) -> Int {
    let count = elements.count
    let pairs = comparisonPairs(of: elements)
    var best = 0
    for start in 1..<max(count, 1) {
      let candidate = (0..<count).lazy.flatMap { pairs[(start + $0) % count] }
      let current = (0..<count).lazy.flatMap { pairs[(best + $0) % count] }
      if candidate.lexicographicallyPrecedes(current) { best = start }
    }
    return best
  }

  /// The elements in the rotation of the fingerprint (types, then labels; never addresses), for
  /// reports that must read the same in every run, such as leak groups.
  public var addressIndependentElements: [Element] {
    let start = Self.addressIndependentStart(of: elements)
    return Array(elements[start...] + elements[..<start])
  }

  /// The elements in the address-independent rotation that starts at an object of `typeName`
  /// (the smallest sequence of (type, label) pairs among those), or ``addressIndependentElements``
  /// when no object has that type: a leak group reads from its entry.
  public func addressIndependentElements(startingWithType typeName: String) -> [Element] {
    let count = elements.count
    let pairs = Self.comparisonPairs(of: elements)
    var best: Int?
    for start in 0..<count where elements[start].typeName == typeName {
      guard let chosen = best else {
        best = start
        continue
      }
      let candidate = (0..<count).lazy.flatMap { pairs[(start + $0) % count] }
      let current = (0..<count).lazy.flatMap { pairs[(chosen + $0) % count] }
      if candidate.lexicographicallyPrecedes(current) { best = start }
    }
    guard let best else { return addressIndependentElements }
    return Array(elements[best...] + elements[..<best])
  }

  /// Each element's type and label, as rotations are compared: never addresses, keys' text elided.
  static func comparisonPairs(of elements: [Element]) -> [[String]] {
    elements.map { [$0.typeName, DataLabel.redacted($0.reference ?? "")] }
  }

  static func startsLower(_ lhs: Element, than rhs: Element) -> Bool {
    switch (lhs.address, rhs.address) {
    case (let left?, let right?) where left != right: left < right
    case (.some, nil): true
    case (nil, .some): false
    default: lhs.objectID < rhs.objectID
    }
  }

  /// The number of objects in the cycle.
  public var length: Int { elements.count }

  /// `Type.label -> Type.label -> … -> FirstType`.
  public var description: String { Self.describe(elements) }

  /// ``description`` in the rotation of ``addressIndependentElements``.
  public var addressIndependentDescription: String { Self.describe(addressIndependentElements) }

  /// `Type.label -> Type.label -> … -> FirstType` for `elements` in their order.
  static func describe(_ elements: [Element]) -> String {
    var text = ""
    for element in elements {
      text += element.typeName
      if let reference = element.reference { text += "." + reference }
      text += " -> "
    }
    return text + elements[0].typeName
  }

  /// Shorter cycles first, then by type names, labels and object ids: a total, deterministic order.
  public static func < (lhs: Self, rhs: Self) -> Bool {
    if lhs.length != rhs.length { return lhs.length < rhs.length }
    for (left, right) in zip(lhs.elements, rhs.elements) {
      if left.typeName != right.typeName { return left.typeName < right.typeName }
      if left.reference != right.reference { return (left.reference ?? "") < (right.reference ?? "") }
    }
    for (left, right) in zip(lhs.elements, rhs.elements) where left.objectID != right.objectID {
      return left.objectID < right.objectID
    }
    return false
  }
}

extension RetainCycle.Element {
  /// Orders elements for the canonical rotation: class instances before closure contexts and
  /// boxes, then by type name.
  var rotationKey: String {
    (kind == .classInstance ? "0" : "1") + typeName
  }
}

extension RetainCycle {
  /// Makes the cycle through `path` (nodes of `graph`, each strongly referencing the next).
  init(graph: ObjectGraph, path: [Int32]) {
    self.init(
      elements: path.indices.map { index in
        let node = Int(path[index])
        let next = Int(path[(index + 1) % path.count])
        return Element(
          objectID: graph.objectID(of: node),
          typeName: graph.typeName(of: node),
          kind: graph.kind(of: node),
          address: graph.address(of: node),
          reference: graph.label(from: node, to: next),
          allocationSite: graph.allocationStack(of: node)?.frames ?? [])
      })
  }
}
