// swift-tools-version:6.0
// The demo: a small app that leaks, found live by the allocation tracker (Scripts/demo, the leak
// gate of Scripts/leak-gate.sh, the end-to-end DemoTests). `swift run leak-detector-demo
// [SNAPSHOT]` from this folder. A package of its own, so that a package that depends on
// swift-leak-detector gets no demo among its products.
import PackageDescription

let package = Package(
  name: "FeedApp",
  products: [
    // The module stays FeedApp: the demo's reports and Baselines/leaks.json name its types so.
    .executable(name: "leak-detector-demo", targets: ["FeedApp"])
  ],
  dependencies: [
    // Named, so that its products are found whatever the checkout's folder is called (a path
    // dependency's identity is its folder's name).
    .package(name: "swift-leak-detector", path: "../..")
  ],
  targets: [
    .executableTarget(name: "FeedApp", dependencies: [.product(name: "LeakDetector", package: "swift-leak-detector")])
  ]
)
