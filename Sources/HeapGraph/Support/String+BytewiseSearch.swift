extension String {
  /// Whether `word` occurs in the text, compared byte for byte in UTF-8. The standard library's
  /// `contains(_:)` compares characters: on the long demangled names of stack frames, asked for
  /// every frame of every stack, it was three quarters of the analysis of a test suite's heap.
  ///
  /// ```swift
  /// "App.Feed.__allocating_init() -> App.Feed".containsBytes("__allocating_init")  // true
  /// ```
  package func containsBytes(_ word: String) -> Bool {
    let found = utf8.withContiguousStorageIfAvailable { text in
      word.utf8.withContiguousStorageIfAvailable { word -> Bool in
        guard let first = word.first else { return false }  // as `contains("")`
        guard text.count >= word.count else { return false }
        var start = 0
        while start <= text.count - word.count {
          if text[start] == first && text[start..<(start + word.count)].elementsEqual(word) { return true }
          start += 1
        }
        return false
      }
    }
    return (found ?? nil) ?? (Substring(self).utf8.firstRange(ofBytes: word) != nil)
  }
}

extension Substring.UTF8View {
  /// The first occurrence of `word`'s UTF-8 bytes, as a range of the text's indices (for the
  /// text that does not give contiguous storage, and for searches within a part of a name).
  ///
  /// ```swift
  /// "(_select in _6F9E…)"[...].utf8.firstRange(ofBytes: "in _")  // the indices of "in _"
  /// ```
  package func firstRange(ofBytes word: String) -> Range<Substring.Index>? {
    let wanted = Array(word.utf8)
    guard let first = wanted.first else { return nil }  // as `containsBytes("")`
    var index = startIndex
    while index < endIndex {
      if self[index] == first && self[index...].starts(with: wanted) { return index..<self.index(index, offsetBy: wanted.count) }
      index = self.index(after: index)
    }
    return nil
  }
}
