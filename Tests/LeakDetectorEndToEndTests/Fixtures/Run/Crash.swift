// Allocates a cycle, then aborts: no exit snapshot; the status is passed through.
final class Doomed { var me: Doomed? }
let doomed = Doomed()
doomed.me = doomed
print("about to abort")
fatalError("planned crash")
