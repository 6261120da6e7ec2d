// concurrency-actor-cycle.swift: LEAKY (Swift concurrency).
// An actor and a class refer to each other strongly: `Account.ledger` holds a
// `Ledger`, and the ledger keeps its `account`:
// Account (actor) -> ledger -> Ledger -> account -> Account.
// Three accounts are opened (with an `await` into the actor) and dropped.
// A global `Bank` object stays reachable (not a leak).
//
// EXPECT-LEAKED: Account=3 Ledger=3
// EXPECT-FIELDS: ledger account

final class Bank: @unchecked Sendable {
    var opened = 0
}

let bank = Bank()

actor Account {
    let owner: String
    var ledger: Ledger?
    var balance = 0

    init(owner: String) { self.owner = owner }

    func attach(_ ledger: Ledger) {
        self.ledger = ledger
    }

    func deposit(_ amount: Int) {
        balance += amount
        ledger?.entries.append(amount)
    }
}

final class Ledger: @unchecked Sendable {
    let account: Account  // should be weak
    var entries: [Int] = []

    init(account: Account) { self.account = account }
}

@inline(never)
func openAccount(_ index: Int) async {
    let account = Account(owner: "owner-\(index)")
    await account.attach(Ledger(account: account))
    await account.deposit(100 * index)
    bank.opened += 1
}

for index in 0..<3 {
    await openAccount(index)
}
print("concurrency-actor-cycle: opened \(bank.opened) accounts")
