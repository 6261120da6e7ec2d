// A small library with two planted leaks, for `leak-detector run -- swift test`: `Pet.owner`
// should be weak (an owner and its pets keep each other alive), and `Timerish.start()` stores a
// closure that captures `self` strongly; `startSafely()` is the fixed version.
public final class Owner {
  public var pets: [Pet] = []
  public init() {}
  public func adopt(_ pet: Pet) { pets.append(pet); pet.owner = self }
}
public final class Pet {
  public var owner: Owner?   // should be weak
  public weak var friend: Pet?
  public let name: String
  public init(name: String) { self.name = name }
}
public final class Timerish {
  public var tick: (() -> Void)?
  public var ticks = 0
  public init() {}
  public func start() { tick = { self.ticks += 1 } }
  public func startSafely() { tick = { [weak self] in self?.ticks += 1 } }
}
