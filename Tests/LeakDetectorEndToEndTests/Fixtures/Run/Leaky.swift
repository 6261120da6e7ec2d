// Leaks three closure cycles and three delegate cycles; keeps a cycle in a global (not a leak).
// Prints to both streams and exits with the status given as its first argument.
#if canImport(Glibc)
  import Glibc
#endif

final class Screen {
  var onTap: (() -> Void)?
  var taps = 0
  func bind() { onTap = { self.taps += 1 } }  // LEAK: Screen.onTap -> closure #1 in Screen.bind() -> Screen
}

final class Parent {
  var child: Child?
}

final class Child {
  var delegate: Parent?  // LEAK: should be weak
}

final class Cache {
  var entries: [String: Entry] = [:]
}

final class Entry {
  var owner: Cache?
}

/// Weak references from a global make the objects escape, so optimized builds allocate them on
/// the heap as debug builds do (without keeping them alive).
final class Escapes {
  weak var screen: Screen?
  weak var parent: Parent?
}

var kept = Cache()
let escapes = Escapes()

@inline(never) func leak() {
  let screen = Screen()
  screen.bind()
  let parent = Parent()
  let child = Child()
  parent.child = child
  child.delegate = parent
  escapes.screen = screen
  escapes.parent = parent
}

for _ in 0..<3 { leak() }
let entry = Entry()
entry.owner = kept
kept.entries["a"] = entry

print("to standard output")
fputs("to standard error\n", stderr)
exit(Int32(CommandLine.arguments.dropFirst().first ?? "0") ?? 0)
