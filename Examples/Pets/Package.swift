// swift-tools-version:6.0
import PackageDescription
let package = Package(
  name: "Pets",
  targets: [
    .target(name: "Pets"),
    .testTarget(name: "PetsTests", dependencies: ["Pets"]),
  ]
)
