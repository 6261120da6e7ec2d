/// The live objects the reflection benchmark reads: the same number of each shape (``Node``,
/// ``Container``, ``Observer``, `Holder<Node>`, ``Loader``), linked to each other, kept alive
/// for the whole benchmark.
final class ReflectionCorpus {
  /// Every object, shapes interleaved.
  let objects: [AnyObject]

  /// Builds `count` objects (rounded down to a multiple of the five shapes).
  init(count: Int) {
    var objects: [AnyObject] = []
    objects.reserveCapacity(count)
    var previous: Node?
    for index in 0..<count / 5 {
      let node = Node(value: index, next: previous)
      previous?.parent = node
      let container = Container()
      container.children = [node, Node(value: -index)]
      container.byName["n\(index % 8)"] = node
      container.names = ["n\(index % 8)"]
      let observer = Observer(owner: node)
      observer.onChange = { node.value += 1 }
      let holder = Holder(node)
      holder.pair = (previous, index)
      let loader = Loader()
      loader.source = node
      loader.state = index % 2 == 0 ? .loading(observer) : .loaded(node, size: index)
      loader.context = index % 3 == 0 ? container : "text"
      objects += [node, container, observer, holder, loader]
      previous = node
    }
    self.objects = objects
  }
}
