// clean-weak-unowned.swift: CLEAN (cycles broken correctly).
// The fixed versions of the leaky idioms: a weak delegate, a weak parent, a
// closure capturing `[weak self]`, an `unowned` back reference, and a
// closure stored in a property that is cleared when done. All objects are
// freed before the program exits.
//
// EXPECT-LEAKED: none
// EXPECT-FIELDS:

protocol ViewDelegate: AnyObject { func viewDidLoad() }

final class View {
    weak var delegate: ViewDelegate?
    var onTap: (() -> Void)?
    func load() { delegate?.viewDidLoad() }
}

final class Controller: ViewDelegate {
    let view = View()
    var loads = 0
    var taps = 0

    init() {
        view.delegate = self
        view.onTap = { [weak self] in self?.taps += 1 }
    }

    func viewDidLoad() { loads += 1 }
}

final class Customer {
    let name: String
    var card: CreditCard?
    init(name: String) { self.name = name }
}

final class CreditCard {
    let number: Int
    unowned let customer: Customer
    init(number: Int, customer: Customer) {
        self.number = number
        self.customer = customer
    }
}

final class Job {
    var completion: (() -> Void)?
    var finished = false
    func run() {
        completion = { self.finished = true }
        completion?()
        completion = nil  // breaks the cycle
    }
}

@inline(never)
func exercise(_ index: Int) -> Int {
    let controller = Controller()
    controller.view.load()
    controller.view.onTap?()
    let customer = Customer(name: "customer-\(index)")
    customer.card = CreditCard(number: index, customer: customer)
    let job = Job()
    job.run()
    return controller.loads + controller.taps + (customer.card?.number ?? 0) + (job.finished ? 1 : 0)
}

var total = 0
for index in 0..<3 {
    total += exercise(index)
}
print("clean-weak-unowned: \(total)")
