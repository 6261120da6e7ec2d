/// The code of a package's test targets, as opposed to its library code: a leak that goes
/// through a type of a test target or a closure written in a test is the test's own doing (a
/// tracking subscriber that keeps its subscriptions, a mock that keeps its caller), and a report
/// puts it after the leaks of the library code.
///
/// In a test process, a test module is one whose name ends in `Tests` (SwiftPM's convention,
/// `AppTests`), or one whose functions' source files lie in the package's `Tests` directory
/// (`<package>/Tests/Integration/Server.swift`; any directory named `Tests` when the package's
/// directory is unknown). A type is the test's when its outermost declaration is in a test
/// module: the type itself, the function a closure is written in, the module an extension is
/// written in. A library type instantiated with a test's type (`App.Map<AppTests.MockSource>`)
/// is the library's. Another process has no test code (``none``).
///
/// ```text
/// AppTests.TrackingSubscriber                                    test code
/// closure #1 in AppTests.FeedTests.testLoad()                    test code
/// App.Publishers.Map<AppTests.MockSource, Swift.Int>.Inner<…>    library code
/// ```
public struct TestCode: Sendable, Hashable {
  /// The test modules found from source files, beside those named `…Tests`.
  public var modules: Set<String>
  /// Whether a module named `…Tests` is a test module.
  public var includesModulesNamedTests = true

  public init(modules: Set<String> = []) {
    self.modules = modules
  }

  /// The code of a process that runs no tests: none.
  public static let none: TestCode = {
    var none = TestCode()
    none.includesModulesNamedTests = false
    return none
  }()

  /// The test modules of the functions in `stacks` whose source files lie in the `Tests`
  /// directory of the package in `packageDirectory` (in any directory named `Tests` when it is
  /// `nil`).
  public init(stacks: some Sequence<[StackFrame]>, packageDirectory: String?) {
    let testsDirectory = packageDirectory.map { ($0.hasSuffix("/") ? $0 : $0 + "/") + "Tests/" }
    var modules: Set<String> = []
    var moduleOfFrame = FrameMemo<String?>()
    for frames in stacks {
      for frame in frames {
        let module = moduleOfFrame.value(for: frame) { frame in
          // An inlined frame's line may be its holder's, in another file: only a function's own
          // frame pairs its name with its file.
          guard let file = frame.file, !frame.inlined else { return nil }
          let isTestFile = testsDirectory.map(file.hasPrefix) ?? file.split(separator: "/").dropLast().contains("Tests")
          return isTestFile ? frame.symbol.flatMap(Self.module(ofDeclaration:)) : nil
        }
        if let module { modules.insert(module) }
      }
    }
    self.modules = modules
  }

  /// Whether `typeName` (a class, a closure context's `closure #1 in …`, a box) is declared in a
  /// test module.
  public func contains(typeName: String) -> Bool {
    guard let module = Self.module(ofDeclaration: typeName) else { return false }
    return (includesModulesNamedTests && module.hasSuffix("Tests")) || modules.contains(module)
  }

  /// The module of `name`'s outermost declaration, or of the extension it is written in.
  static func module(ofDeclaration name: String) -> String? {
    let outermost = DemangledName(name).contexts.last.map(String.init) ?? name
    let declaration = outermost.hasPrefix("static ") ? String(outermost.dropFirst("static ".count)) : outermost
    if declaration.hasPrefix("(extension in "), let end = declaration.firstRange(of: "):") {
      return String(declaration[declaration.index(declaration.startIndex, offsetBy: "(extension in ".count)..<end.lowerBound])
    }
    return ReadableName.module(of: name)
  }
}
