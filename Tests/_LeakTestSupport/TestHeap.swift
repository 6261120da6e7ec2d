import HeapGraph

/// Synthetic heaps written as text, for algorithm tests:
///
/// ```swift
/// let heap = TestHeap("Parent.child -> Child; Child.parent ~> Parent")
/// ```
///
/// Each statement is `Source.label ARROW Target` (the label is optional): `->` strong,
/// `~>` weak, `=>` unowned, `:>` unmanaged. An object's name is its type, up to an optional
/// `#suffix` that tells instances apart (`Node#1`, `Node#2`). Objects get ids 1, 2, … and
/// addresses 0x1000, 0x2000, … in order of first mention, unless `addresses` says otherwise.
public struct TestHeap {
  public private(set) var snapshot: HeapSnapshot
  /// Object id by name.
  public private(set) var ids: [String: Int64] = [:]

  public init(
    _ text: String, addresses: [String: UInt64] = [:], extraObjects: [String] = [], roots: [String] = [],
    sizes: [String: Int] = [:], generations: [String: Int] = [:]
  ) {
    var builder = HeapSnapshot.Builder(metadata: .init(tool: "TestHeap"))
    var ids: [String: Int64] = [:]
    func id(_ name: String) -> Int64 {
      if let id = ids[name] { return id }
      let id = Int64(ids.count + 1)
      ids[name] = id
      let type = name.split(separator: "#", maxSplits: 1).first.map(String.init) ?? name
      builder.addObject(
        id: id, type: type, address: addresses[name] ?? UInt64(id) * 0x1000, size: sizes[name], generation: generations[name])
      return id
    }
    for name in extraObjects { _ = id(name) }
    let arrows: [(String, Ownership)] = [("->", .strong), ("~>", .weak), ("=>", .unowned), (":>", .unmanaged)]
    for statement in text.split(separator: ";") {
      let statement = statement.trimmingSpaces
      guard !statement.isEmpty else { continue }
      guard let (arrow, ownership) = arrows.first(where: { statement.contains($0.0) }) else {
        _ = id(statement)
        continue
      }
      let sides = statement.components(separatedBy: arrow)
      precondition(sides.count == 2, "TestHeap: cannot read '\(statement)'")
      let source = sides[0].trimmingSpaces
      let target = sides[1].trimmingSpaces
      let (name, label): (String, String?) =
        if let dot = source.firstIndex(of: ".") {
          (String(source[..<dot]), String(source[source.index(after: dot)...]))
        } else {
          (source, nil)
        }
      builder.addReference(from: id(name), to: id(target), label: label, ownership: ownership)
    }
    for root in roots { builder.addRoot(object: id(root), kind: "global", label: root) }
    self.snapshot = builder.snapshot
    self.ids = ids
  }

  public var graph: ObjectGraph { ObjectGraph(snapshot) }

  /// The name of the object with `id`.
  public func name(of id: Int64) -> String {
    ids.first { $0.value == id }?.key ?? "#\(id)"
  }

  /// The cycles of `report` as lists of object names, each rotated to start at its
  /// smallest id: `[["A", "B"]]`.
  public func cycleNames(_ report: CycleReport) -> Set<[String]> {
    Set(report.cycles.map { cycle in rotatedToSmallestID(cycle.elements.map(\.objectID)).map(name(of:)) })
  }
}

/// Rotates a cycle's ids so that the smallest comes first.
public func rotatedToSmallestID(_ ids: [Int64]) -> [Int64] {
  guard let smallest = ids.indices.min(by: { ids[$0] < ids[$1] }) else { return ids }
  return Array(ids[smallest...] + ids[..<smallest])
}

extension StringProtocol {
  var trimmingSpaces: String {
    String(drop(while: { $0 == " " || $0 == "\n" }).reversed().drop(while: { $0 == " " || $0 == "\n" }).reversed())
  }

  func components(separatedBy separator: String) -> [String] {
    var parts: [String] = []
    var rest = Substring(self)
    while let range = rest.range(of: separator) {
      parts.append(String(rest[..<range.lowerBound]))
      rest = rest[range.upperBound...]
    }
    parts.append(String(rest))
    return parts
  }
}

extension Substring {
  func range(of needle: String) -> Range<Index>? {
    var index = startIndex
    while index < endIndex {
      if self[index...].hasPrefix(needle) { return index..<self.index(index, offsetBy: needle.count) }
      index = self.index(after: index)
    }
    return nil
  }
}
