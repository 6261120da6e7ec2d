/// A pattern that a whole type name matches, shell style: `*` stands for any run of characters
/// (none included), `?` for any one character, and every other character for itself.
///
/// The same patterns name the types of `type` suppression rules (``Suppressions``) and the
/// allowed, known-leaking types of the test integrations. A closure context's type is its
/// function's name, so `*in Vendor.*` matches the closures written in `Vendor`'s code.
///
/// ```swift
/// TypePattern("MyApp.Cache").matches("MyApp.Cache")            // true: the whole name
/// TypePattern("MyApp.Cache").matches("MyApp.CacheEntry")       // false
/// TypePattern("MyApp.Cache*").matches("MyApp.CacheEntry")      // true: a prefix
/// TypePattern("*.Entry").matches("MyApp.Cache.Entry")          // true: a suffix
/// TypePattern("Swift.Array<?>").matches("Swift.Array<A>")      // true: one character
/// TypePattern("*in XCTest.*").matches("closure #1 in XCTest.XCTestCase.wait(for: [XCTestExpectation])")  // true
/// ```
public struct TypePattern: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
  /// The pattern as written.
  public var pattern: String

  /// The pattern `pattern`, as written.
  public init(_ pattern: String) {
    self.pattern = pattern
  }

  /// The pattern of a string literal: `let pattern: TypePattern = "Foundation.*"`.
  public init(stringLiteral pattern: String) {
    self.init(pattern)
  }

  public var description: String { pattern }

  /// Whether `name` matches the pattern from its first character to its last.
  ///
  /// - Complexity: O(*p* × *n*) in the worst case for a pattern of *p* characters and a name of
  ///   *n*; O(*p* + *n*) for patterns with at most one `*`.
  public func matches(_ name: String) -> Bool {
    var pattern = pattern
    var name = name
    return pattern.withUTF8 { pattern in name.withUTF8 { Self.matches(pattern: pattern, text: $0) } }
  }

  /// ``matches(_:)`` on UTF-8 bytes: `?` stands for one character, its first byte and the
  /// continuation bytes after it.
  private static func matches(pattern: UnsafeBufferPointer<UInt8>, text: UnsafeBufferPointer<UInt8>) -> Bool {
    func characterEnd(after t: Int) -> Int {
      var end = t + 1
      while end < text.count, text[end] & 0xC0 == 0x80 { end += 1 }
      return end
    }
    var p = 0
    var t = 0
    var star = -1
    var resume = 0
    while t < text.count {
      if p < pattern.count && pattern[p] == UInt8(ascii: "?") {
        p += 1
        t = characterEnd(after: t)
      } else if p < pattern.count && pattern[p] == text[t] {
        p += 1
        t += 1
      } else if p < pattern.count && pattern[p] == UInt8(ascii: "*") {
        star = p
        resume = t
        p += 1
      } else if star >= 0 {
        p = star + 1
        resume = characterEnd(after: resume)
        t = resume
      } else {
        return false
      }
    }
    while p < pattern.count && pattern[p] == UInt8(ascii: "*") { p += 1 }
    return p == pattern.count
  }

  /// The types of the runtime and the test frameworks that outlive a program or a test by design:
  /// the standard library's, Concurrency's, Foundation's, Dispatch's, Synchronization's, XCTest's
  /// and Swift Testing's (with the closures written in the test frameworks) and this package's.
  public static let frameworkTypes: [TypePattern] = [
    "Swift.*", "_Concurrency.*", "Foundation.*", "FoundationEssentials.*", "FoundationInternationalization.*",
    "FoundationNetworking.*", "Dispatch.*", "XCTest.*", "Testing.*", "Synchronization.*", "LeakDetector.*",
    "LeakDetectorTesting.*", "*in XCTest.*", "*in Testing.*", "*in LeakDetector.*",
  ]
}
