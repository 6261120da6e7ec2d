import LeakDetector
import XCTest

final class ExploreTests: XCTestCase {
  func dump(_ object: AnyObject, depth: Int = 0, seen: inout Set<UInt>) {
    let a = address(of: object)
    guard depth < 4, seen.insert(a).inserted else { return }
    let r = reflect(object)
    print(String(repeating: "  ", count: depth) + "OBJ \(r.typeName) \(r.kind)")
    for d in r.diagnostics { print(String(repeating: "  ", count: depth) + "  DIAG \(d)") }
    for ref in r.references {
      print(String(repeating: "  ", count: depth) + "  REF \(ref.label) \(ref.ownership) -> \(ref.targetTypeName) \(ref.targetKind) \(ref.targetAddress == address(of: object) ? "(self)" : "")")
      if ref.ownership == .strong, ref.targetKind != .classInstance {
        let target = Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: ref.targetAddress)!).takeUnretainedValue()
        dump(target, depth: depth + 1, seen: &seen)
      }
    }
  }

  func testExploreClosures() {
    for (name, bind) in [("strong", { (f: Feed) in f.bindStrongly() }), ("weak", { $0.bindWeakly() }), ("unowned", { $0.bindUnowned() }),
                         ("other", { $0.bindWithOther(escaping(Leaf())) }), ("counter", { $0.bindCounter() }), ("nested", { $0.bindNested() }),
                         ("array", { $0.bindInArray() }), ("any", { $0.bindAsAny() }), ("method", { $0.bindMethodReference() })] {
      let feed = escaping(Feed())
      bind(feed)
      print("==== \(name)")
      var seen = Set<UInt>()
      dump(feed, seen: &seen)
    }
  }
}
