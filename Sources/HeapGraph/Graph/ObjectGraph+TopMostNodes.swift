extension ObjectGraph {
  /// Of `candidates`, those that no other candidate holds: a candidate reachable over strong
  /// references from a candidate outside its own strongly connected component is part of that
  /// candidate's leak (MLeaksFinder's parent suppression), while the members of one cycle do not
  /// hold each other in this sense, so each stays. Paths may pass through objects that are not
  /// candidates (closure contexts, boxes).
  ///
  /// ```swift
  /// // Screen.model -> Model; Model.onChange -> closure; closure.capture -> Model
  /// graph.topMostNodes(of: [screen, model])  // [screen]
  /// ```
  ///
  /// - Returns: the top-most candidates, in the order given.
  /// - Complexity: O(*n* + *e*): the components of what the candidates reach, then one
  ///   breadth-first search from the edges that leave a candidate's component.
  public func topMostNodes(of candidates: [Int]) -> [Int] {
    var component = [Int32](repeating: -1, count: objectCount)
    for (index, members) in StronglyConnectedComponents(graph: self, startNodes: candidates).components.enumerated() {
      for member in members { component[Int(member)] = Int32(objectCount + index) }
    }
    func componentOf(_ node: Int) -> Int32 { component[node] >= 0 ? component[node] : Int32(node) }
    let candidateComponents = Set(candidates.map(componentOf))
    var isHeld = [Bool](repeating: false, count: objectCount)
    var queue: [Int32] = []
    // Sources: every member of a candidate's component; an edge leaving the component holds its target.
    let sources = (0..<objectCount).lazy.filter { candidateComponents.contains(componentOf($0)) }
    for node in sources {
      for edge in Int(strongOffsets[node])..<Int(strongOffsets[node + 1]) {
        let target = Int(strongTargets[edge])
        if componentOf(target) != componentOf(node) && !isHeld[target] {
          isHeld[target] = true
          queue.append(Int32(target))
        }
      }
    }
    var head = 0
    while head < queue.count {
      let node = Int(queue[head])
      head += 1
      for edge in Int(strongOffsets[node])..<Int(strongOffsets[node + 1]) where !isHeld[Int(strongTargets[edge])] {
        isHeld[Int(strongTargets[edge])] = true
        queue.append(strongTargets[edge])
      }
    }
    return candidates.filter { !isHeld[$0] }
  }
}
