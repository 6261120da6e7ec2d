// A crash test, as test suites write them: the program runs itself as a child that is expected
// to crash, and checks that it did. The child's end is the test's to judge.
#if canImport(Glibc)
  import Glibc
#endif

if CommandLine.arguments.count > 1 {
  fatalError("the crash the test expects")
}
var child: pid_t = 0
let arguments = [CommandLine.arguments[0], "child"]
var argv = arguments.map { strdup($0) } + [nil]
guard posix_spawn(&child, CommandLine.arguments[0], nil, nil, &argv, environ) == 0 else { fatalError("cannot spawn") }
var status: Int32 = 0
waitpid(child, &status, 0)
let signal = status & 0x7f
print(signal == SIGILL ? "the child crashed as expected" : "the child did not crash (status \(status))")
exit(signal == SIGILL ? 0 : 1)
