// The README's and the articles' example: a view model whose update handler captures it, until
// `unbind()`.

final class ProfileView {
  func render(_ name: String) { print(name) }
}

final class ProfileViewModel {
  var name = "Ada"
  var onUpdate: (() -> Void)?

  func bind(to view: ProfileView) {
    onUpdate = { view.render(self.name) }  // captures self strongly
  }

  func unbind() { onUpdate = nil }
}
