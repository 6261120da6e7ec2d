/// A subclass shape: its own enum payload and an existential, then its superclass's fields.
final class Loader: BaseLoader {
  var state: LoadState = .idle
  var context: Any?
}
