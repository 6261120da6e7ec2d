/// A shape whose references are collection elements: an array, a dictionary's values, a set of names.
final class Container {
  var children: [Node] = []
  var byName: [String: Node] = [:]
  var names: Set<String> = []
}
