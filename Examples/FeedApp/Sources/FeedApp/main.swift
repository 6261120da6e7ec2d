// FeedApp (the leak-detector-demo executable): a small app that leaks, caught by the allocation
// tracker.
//
// It shows a feed screen built the way real code does (a view model whose update handler
// captures it, an image loader whose pending request's completion captures the loader, a session
// whose delegate owns it), plus safe look-alikes ([weak self], a weak parent), then dismisses it.
// Everything allocated for the screen that is still alive afterwards was leaked: the tracker's
// snapshot of that generation, with allocation stacks, goes to `leak-detector analyze`.

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

/// Shows the feed screen and dismisses it: afterwards nothing should be left of it.
@inline(never)
func showAndDismissFeedScreen() {
  let coordinator = Coordinator()
  let leaking = FeedViewModel()
  leaking.coordinator = coordinator
  leaking.bind(to: FeedView())
  leaking.loader.load("https://example.com/avatar.png")
  let safe = FeedViewModel()
  safe.bindSafely(to: FeedView())
  coordinator.children = [leaking, safe]
  let network = Network()
  print("FeedApp: showing the feed (\(coordinator.children.count) view models, session \(network.session.delegate != nil))")
}

// Track every class instance with its allocation stack, from a fresh generation.
AllocationTracker.start(.init(capturesStacks: true))
let generation = AllocationTracker.markGeneration()
showAndDismissFeedScreen()

// Whatever of that generation is still alive was leaked.
let survivors = AllocationTracker.liveCounts(inGeneration: generation)
print("FeedApp: after dismissing, \(survivors.values.reduce(0, +)) objects of the screen are still alive:")
for (type, count) in survivors.sorted(by: { $0.key < $1.key }) { print("  \(count) \(type)") }

let snapshot = AllocationTracker.snapshot(inGeneration: generation, process: "FeedApp")
AllocationTracker.stop()
if CommandLine.arguments.count > 1 {
  // Capture: write the leaked objects, their references and allocation stacks, for `leak-detector analyze`.
  try FileBytes.writeAtomically(snapshot.jsonBytes(), to: CommandLine.arguments[1])
  print("FeedApp: heap snapshot written to \(CommandLine.arguments[1])")
} else {
  print(HeapAnalysis(graph: ObjectGraph(snapshot)).renderText(), terminator: "")
}
