/// A superclass with a stored reference of its own, for ``Loader``.
class BaseLoader {
  var source: Node?
}
