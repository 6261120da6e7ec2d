// unmanaged-retained.swift: LEAKY.
// `Unmanaged.passRetained` gives a +1 reference to a C-style API as an opaque
// pointer, but the pointer is dropped and never released (no matching
// `release()` / `takeRetainedValue()`). Nothing refers to the `Token` objects
// afterwards: no Swift object, no global, no stack. Three tokens are made in a
// loop. A global `Registrations` object stays reachable (not a leak).
//
// EXPECT-LEAKED: Token=3
// EXPECT-FIELDS:

final class Registrations {
    var checksum: UInt = 0
}

let registrations = Registrations()

final class Token {
    let id: Int
    let payload: [Int]

    init(id: Int) {
        self.id = id
        payload = Array(repeating: id, count: 8)
    }
}

@inline(never)
func register(_ index: Int) {
    let opaque = Unmanaged.passRetained(Token(id: index)).toOpaque()
    // Pretend to hand `opaque` to a C callback API that forgets it.
    registrations.checksum &+= UInt(bitPattern: Int(bitPattern: opaque)) & 0xF
}

for index in 0..<3 {
    register(index)
}
print("unmanaged-retained: checksum \(registrations.checksum)")
