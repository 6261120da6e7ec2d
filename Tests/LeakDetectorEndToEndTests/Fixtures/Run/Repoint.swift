// Leaks one cycle, then points the run directory's path at the directory given as its first
// argument before it exits, as a later run re-points the path while a process of an earlier
// one still runs. Its agent resolved the path when the process started, so its exit snapshot
// still goes to its own run.
#if canImport(Glibc)
  import Glibc
#endif

final class Loop {
  var next: Loop?
}

/// A weak reference from a global makes the object escape, so optimized builds allocate it on
/// the heap as debug builds do (without keeping it alive).
final class Escapes {
  weak var loop: Loop?
}

let escapes = Escapes()

@inline(never) func leak() {
  let loop = Loop()
  loop.next = loop
  escapes.loop = loop
}

leak()
let path = String(cString: getenv("LEAK_DETECTOR_RUN_DIRECTORY"))
guard unlink(path) == 0, symlink(CommandLine.arguments[1], path) == 0 else {
  fputs("Repoint: cannot re-point \(path)\n", stderr)
  exit(3)
}
