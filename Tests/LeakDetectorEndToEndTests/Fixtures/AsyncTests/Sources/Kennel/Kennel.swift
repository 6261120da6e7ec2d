public final class Dog {
  public let name: String
  public var owner: Owner?  // LEAK: should be weak
  public init(name: String) { self.name = name }
}

public final class Owner {
  public var dogs: [Dog] = []
  public init() {}
}

public final class Walker {
  public var route: (() -> Void)?
  public var walks = 0
  public init() {}
  public func plan() { route = { self.walks += 1 } }  // LEAK: Walker.route -> closure -> Walker
}

public final class Bowl: @unchecked Sendable {
  public var portions = 0
  public init() {}
}

public final class Leash {
  public var onPull: (() -> Void)?
  public var pulls = 0
  public init() {}
  public func attach() { onPull = { self.pulls += 1 } }  // LEAK: Leash.onPull -> closure -> Leash
}

public final class Kennelhand {
  public var partner: Kennelhand?  // LEAK: partners keep each other
  public init() {}
}
