// Plants retain cycles of two classes, an Owner and its Pet that points back. With no argument
// it plants three and exits; "rounds SECONDS" plants one every 20 ms for that long (a program
// whose leak grows, for --growth), then exits. Built by the tests with the runtime linked in
// (-static-stdlib), with jemalloc, and run under other allocators.
#if canImport(Glibc)
  import Glibc
#endif

final class Owner {
  var pet: Pet?
}

final class Pet {
  var owner: Owner?  // LEAK: should be weak
}

/// Weak references from a global make the objects escape, so optimized builds allocate them on
/// the heap as debug builds do (without keeping them alive).
final class Escapes {
  weak var owner: Owner?
}

let escapes = Escapes()

@inline(never) func plant() {
  let owner = Owner()
  let pet = Pet()
  owner.pet = pet
  pet.owner = owner
  escapes.owner = owner
}

let arguments = CommandLine.arguments.dropFirst()
if arguments.first == "rounds", let seconds = Double(arguments.dropFirst().first ?? "") {
  let rounds = Int(seconds / 0.02)
  for _ in 0..<rounds {
    plant()
    usleep(20_000)
  }
} else {
  for _ in 0..<3 { plant() }
}
print("planted")
