// Forks a child (no exec) that a termination request ends, says how it ended, and exits normally.
#if canImport(Glibc)
  import Glibc
#endif

let child = fork()
if child == 0 {
  kill(getpid(), SIGTERM)
  _exit(0)
}
var status: Int32 = 0
while waitpid(child, &status, 0) < 0 && errno == EINTR {}
print(status & 0x7f == 0 ? "child exited with \((status >> 8) & 0xff)" : "child ended by signal \(status & 0x7f)")
