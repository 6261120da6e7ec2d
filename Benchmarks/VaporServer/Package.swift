// swift-tools-version:6.0
// A small Vapor server for Benchmarks/server-overhead.sh: what the run agent costs a real server
// under load (wrk), plain against sampled tracking. A package of its own: the tool's package does
// not depend on Vapor.
import PackageDescription

let package = Package(
  name: "VaporServer",
  platforms: [.macOS(.v13)],
  dependencies: [
    .package(url: "https://github.com/vapor/vapor", from: "4.122.3")
  ],
  targets: [
    .executableTarget(name: "VaporServer", dependencies: [.product(name: "Vapor", package: "vapor")])
  ]
)
