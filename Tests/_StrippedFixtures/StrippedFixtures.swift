// Built with -disable-reflection-metadata (see Package.swift): the runtime has no field
// descriptors for these types, as in a stripped release binary.

public final class StrippedNode {
  public var next: StrippedNode?
  public var name = "stripped"

  public init() {}
}
