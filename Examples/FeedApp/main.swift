// FeedApp (the leak-detector-demo executable): a small app that leaks, found live by RetainCycleDetector.
//
// It builds a feed screen the way real code does (a view model whose update handler captures
// it, an image loader whose pending request's completion captures the loader, a session whose
// delegate owns it), plus safe look-alikes ([weak self], a weak parent), then asks the detector
// for the cycles, prints them, and writes the detector's heap snapshot for `leak-detector analyze`.

import Foundation
import LeakDetector

final class ImageRequest {
  let url: String
  var completion: ((String) -> Void)?
  init(url: String) { self.url = url }
}

final class ImageCache {
  var pending: [String: ImageRequest] = [:]
}

final class ImageLoader {
  let cache = ImageCache()
  var loaded = 0

  func load(_ url: String) {
    let request = ImageRequest(url: url)
    request.completion = { image in
      self.loaded += 1  // strong capture: the pending request keeps the loader alive
      print(image, request.url)
    }
    cache.pending[url] = request
  }
}

final class FeedViewModel {
  var items: [String] = []
  var onUpdate: (() -> Void)?
  let loader = ImageLoader()
  weak var coordinator: Coordinator?

  func bind(to view: FeedView) {
    onUpdate = {
      view.render(self.items)  // captures self strongly: FeedViewModel <-> closure
    }
  }

  func bindSafely(to view: FeedView) {
    onUpdate = { [weak self] in view.render(self?.items ?? []) }
  }
}

final class FeedView {
  func render(_ items: [String]) { print(items.count) }
}

final class Coordinator {
  var children: [FeedViewModel] = []
}

protocol SessionDelegate: AnyObject {}

final class Session {
  var delegate: SessionDelegate?  // strong, like URLSession.delegate
}

final class Network: SessionDelegate {
  var session = Session()
  init() { session.delegate = self }
}

@inline(never)
func makeScreen() -> (Coordinator, FeedViewModel, Network, FeedViewModel) {
  let coordinator = Coordinator()
  let leaking = FeedViewModel()
  leaking.coordinator = coordinator
  leaking.bind(to: FeedView())
  leaking.loader.load("https://example.com/avatar.png")
  let safe = FeedViewModel()
  safe.bindSafely(to: FeedView())
  coordinator.children = [leaking, safe]
  return (coordinator, leaking, Network(), safe)
}

let (coordinator, leaking, network, safe) = makeScreen()
let detector = RetainCycleDetector()
for candidate: AnyObject in [coordinator, leaking, network, safe] { detector.addCandidate(candidate) }
let report = detector.findRetainCycleReport()
for diagnostic in detector.diagnostics { print("note: \(diagnostic)") }

if CommandLine.arguments.count > 1, let snapshot = detector.lastSnapshot {
  // Capture: write what the detector saw, for `leak-detector analyze`.
  try FileBytes.writeAtomically(snapshot.jsonBytes(), to: CommandLine.arguments[1])
  print("FeedApp: found \(report.foundCycleCount) retain cycles among \(report.objectCount) live objects; heap snapshot written to \(CommandLine.arguments[1])")
} else {
  print(report.renderText(), terminator: "")
}
withExtendedLifetime((coordinator, leaking, network, safe)) {}
