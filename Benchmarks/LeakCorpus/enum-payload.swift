// enum-payload.swift: LEAKY.
// Two cycles through enums:
// 1. `Session.state` is a `SessionState` enum whose `.active` case carries the
//    `Connection` class instance, and the connection keeps its `session`:
//    Session -> state (.active payload) -> Connection -> Session.
// 2. `Workflow.plan` is an `indirect enum Plan`; the payload of `.step` is a
//    box holding the rest of the plan, which ends in `.finish(self)`:
//    Workflow -> plan (indirect box) -> Workflow.
// Three of each are made in a loop and dropped. A global `Journal` object stays
// reachable (not a leak).
//
// EXPECT-LEAKED: Session=3 Connection=3 Workflow=3
// EXPECT-FIELDS: state session plan

final class Journal {
    var lines: [String] = []
}

let journal = Journal()

enum SessionState {
    case idle
    case active(Connection)
    case closed(reason: String)
}

final class Connection {
    let session: Session  // should be weak/unowned
    let port: Int

    init(session: Session, port: Int) {
        self.session = session
        self.port = port
    }
}

final class Session {
    let user: String
    var state: SessionState = .idle

    init(user: String) { self.user = user }

    func connect(port: Int) {
        state = .active(Connection(session: self, port: port))
    }
}

indirect enum Plan {
    case finish(Workflow)
    case step(String, Plan)
}

final class Workflow {
    let title: String
    var plan: Plan?

    init(title: String) { self.title = title }

    func prepare() {
        plan = .step("fetch", .step("parse", .finish(self)))
    }
}

@inline(never)
func openSession(_ index: Int) {
    let session = Session(user: "user-\(index)")
    session.connect(port: 8_000 + index)
    let workflow = Workflow(title: "workflow-\(index)")
    workflow.prepare()
    journal.lines.append("\(session.user) \(workflow.title)")
}

for index in 0..<3 {
    openSession(index)
}
print("enum-payload: \(journal.lines.count) sessions")
