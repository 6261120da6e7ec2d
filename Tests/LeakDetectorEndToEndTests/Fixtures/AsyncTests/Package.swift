// swift-tools-version:6.0
import PackageDescription
let package = Package(
  name: "Kennel",
  targets: [
    .target(name: "Kennel"),
    .testTarget(name: "KennelTests", dependencies: ["Kennel"]),
  ]
)
