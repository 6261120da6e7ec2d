// swift-tools-version:6.0
// The capture soak (Scripts/soak): live capture while threads mutate, with exact object counts
// afterwards. A package of its own, so that a package that depends on swift-leak-detector does
// not carry it.
import PackageDescription

let package = Package(
  name: "CaptureSoak",
  dependencies: [
    // Named, so that its products are found whatever the checkout's folder is called (a path
    // dependency's identity is its folder's name).
    .package(name: "swift-leak-detector", path: "../..")
  ],
  targets: [
    .executableTarget(
      name: "capture-soak",
      dependencies: [.product(name: "LeakDetector", package: "swift-leak-detector")],
      swiftSettings: [.swiftLanguageMode(.v5)]
    )
  ]
)
