// closure-self.swift: LEAKY.
// A `Ticker` stores, in its `onTick` property, a closure that captures `self`
// (and a local string, so the closure has a context of its own):
// Ticker -> onTick closure context -> Ticker. Three tickers are made in a loop,
// started and dropped. The program keeps no global object, so at exit no
// Swift object is reachable from any root.
//
// EXPECT-LEAKED: Ticker=3
// EXPECT-FIELDS: onTick

final class Ticker {
    let name: String
    var ticks = 0
    var onTick: (() -> Void)?

    init(name: String) { self.name = name }

    func start() {
        let prefix = "tick " + name
        onTick = {
            self.ticks += 1
            if self.ticks > 1_000 { print(prefix, self.ticks) }
        }
        onTick?()
    }
}

@inline(never)
func startTicker(_ index: Int) {
    let ticker = Ticker(name: "ticker-\(index)")
    ticker.start()
}

for index in 0..<3 {
    startTicker(index)
}
print("closure-self: started 3 tickers")
