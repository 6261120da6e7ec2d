// clean-globals.swift: CLEAN (objects held by globals, statics and threads).
// Objects that are still alive at exit but reachable, so not leaks:
// a `static let shared` singleton, a global dictionary cache, a global array
// of handlers whose closures capture objects, a lazily initialised static,
// an object retained with `Unmanaged.passRetained` whose opaque pointer is
// kept in a global (a C-style context pointer), a parent/child pair whose
// back reference is weak, and an object held only by the stack of a
// background thread that is still blocked when the program exits.
//
// EXPECT-LEAKED: none
// EXPECT-FIELDS:

import Dispatch

final class Settings {
    static let shared = Settings()
    var values: [String: String] = ["mode": "fast"]
}

final class Model {
    let name: String
    weak var parent: Model?
    var children: [Model] = []
    init(name: String) { self.name = name }
}

final class Handler {
    let name: String
    init(name: String) { self.name = name }
}

enum Registry {
    static var cache: [String: Model] = [:]
    static var handlers: [() -> String] = []
    static let lazyFormatter = Handler(name: "lazy")
}

var contextPointer: UnsafeMutableRawPointer?
let blockedThreadStarted = DispatchSemaphore(value: 0)
let neverSignalled = DispatchSemaphore(value: 0)

@inline(never)
func populate() {
    for index in 0..<3 {
        let model = Model(name: "model-\(index)")
        let child = Model(name: "child-\(index)")
        child.parent = model
        model.children.append(child)
        Registry.cache[model.name] = model
        let handler = Handler(name: "handler-\(index)")
        Registry.handlers.append { handler.name + Settings.shared.values["mode"]! }
    }
    contextPointer = Unmanaged.passRetained(Handler(name: "c-context")).toOpaque()
    _ = Registry.lazyFormatter.name
    Thread.detach {
        let onStack = Handler(name: "held by a blocked thread")
        blockedThreadStarted.signal()
        neverSignalled.wait()
        print(onStack.name)
    }
    blockedThreadStarted.wait()
}

enum Thread {
    static func detach(_ body: @escaping @Sendable () -> Void) {
        DispatchQueue.global().async(execute: body)
    }
}

populate()
print("clean-globals: \(Registry.cache.count) models, \(Registry.handlers.map { $0() }.count) handlers")
