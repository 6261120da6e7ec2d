/// The code of the package being checked, as opposed to its dependencies, the toolchain and the
/// system: what a report points at first, because it is the code its reader can change.
///
/// A stack frame is the package's own when its source file lies in the package's directory
/// outside its build folders (`.build`, `.build-*`, `.swiftpm`, where SwiftPM keeps the
/// dependencies' checkouts). A file without a directory (`Feed.swift`) is taken as the
/// package's own; a relative path with directories (`../sysdeps/nptl/…`) is not. Without a
/// package directory nothing is: the analysis then depends on no file path, so a stripped
/// snapshot's findings are the same.
///
/// ```text
/// package /src/app:
///   /src/app/Tests/AppTests/Helpers.swift                        own
///   /src/app/.build/checkouts/swift-nio/Sources/NIOCore/X.swift  not own (a dependency)
///   /home/build-user/swift/stdlib/public/core/Array.swift        not own (the toolchain)
///   <compiler-generated>                                         not own
/// ```
public struct OwnCode: Sendable, Hashable {
  /// The package's directory, absolute, without a trailing `/`; `nil` when unknown.
  public var packageDirectory: String?

  /// The code of the package in `packageDirectory` (trailing `/` ignored).
  public init(packageDirectory: String?) {
    var directory = packageDirectory
    while let last = directory?.last, last == "/", directory!.count > 1 { directory!.removeLast() }
    self.packageDirectory = directory
  }

  /// Whether `frame`'s source file is the package's own.
  public func contains(_ frame: StackFrame) -> Bool {
    guard let packageDirectory, var file = frame.file, !frame.isCompilerGenerated, frame.line != nil else { return false }
    // A bare file name (`Feed.swift`) is the package's; a relative path with directories is a
    // library's as its build saw it (glibc's `../sysdeps/nptl/libc_start_call_main.h`).
    guard file.hasPrefix("/") else { return !file.contains("/") }
    return file.withUTF8 { path in
      let directory = packageDirectory.utf8
      guard path.count > directory.count, path.starts(with: directory), path[directory.count] == UInt8(ascii: "/") else {
        return false
      }
      // The directories between the package's and the file: none may be a build folder.
      var start = directory.count + 1
      while let end = path[start...].firstIndex(of: UInt8(ascii: "/")) {
        if Self.isBuildFolder(UnsafeBufferPointer(rebasing: path[start..<end])) { return false }
        start = end + 1
      }
      return true
    }
  }

  /// The position in `frames` (innermost first) of the first of the package's own frames of
  /// code people wrote (``StackFrame/isWrittenCode``: not an allocating initializer or a thunk),
  /// or `nil` when none is.
  public func firstOwnFrame(in frames: [StackFrame]) -> Int? {
    frames.firstIndex { contains($0) && $0.isWrittenCode }
  }

  /// Whether the package's code made an object allocated with `frames`: one of the first three
  /// frames of code people wrote is the package's own (its line, or a dependency's initializer or
  /// factory it called directly), not merely somewhere below (every object of a program has
  /// `main` at the bottom of its stack).
  public func made(_ frames: [StackFrame]) -> Bool {
    var written = 0
    for frame in frames where frame.isWrittenCode {
      if contains(frame) { return true }
      written += 1
      if written == Self.framesOfMadeObjects { return false }
    }
    return false
  }

  /// How many frames of written code `made(_:)` looks at.
  static let framesOfMadeObjects = 3

  /// The modules that the package's own frames in `stacks` belong to (`AppTests` for
  /// `AppTests.PairTests.testPair()`): the types of these modules are the package's own.
  public func modules(in stacks: some Sequence<[StackFrame]>) -> Set<String> {
    var modules: Set<String> = []
    var moduleOfFrame = FrameMemo<String?>()
    for frames in stacks {
      for frame in frames {
        let module = moduleOfFrame.value(for: frame) { frame in
          contains(frame) ? frame.symbol.flatMap(ReadableName.module(of:)) : nil
        }
        if let module { modules.insert(module) }
      }
    }
    return modules
  }

  private static func isBuildFolder(_ component: UnsafeBufferPointer<UInt8>) -> Bool {
    func hasPrefix(_ prefix: StaticString) -> Bool {
      component.count >= prefix.utf8CodeUnitCount
        && component.starts(with: UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount))
    }
    func equals(_ name: StaticString) -> Bool { component.count == name.utf8CodeUnitCount && hasPrefix(name) }
    return equals(".build") || hasPrefix(".build-") || hasPrefix(".build_") || equals(".swiftpm") || equals("checkouts")
  }
}
