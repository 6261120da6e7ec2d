#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension String {
  /// Whether `word` occurs in the text, compared byte for byte in UTF-8. The standard library's
  /// `contains(_:)` compares characters: on the long demangled names of stack frames, asked for
  /// every frame of every stack, it was three quarters of the analysis of a test suite's heap.
  ///
  /// ```swift
  /// "App.Feed.__allocating_init() -> App.Feed".containsBytes("__allocating_init")  // true
  /// ```
  package func containsBytes(_ word: String) -> Bool {
    var word = word
    let found = utf8.withContiguousStorageIfAvailable { text in word.withUTF8 { Self.offset(of: $0, in: text) != nil } }
    return found ?? (Substring(self).utf8.firstRange(ofBytes: word) != nil)
  }

  /// Where `word` first occurs in `text`; `nil` when it does not (and for an empty word, as
  /// `contains("")`). Candidates are found with the C library's `memchr`, which passes over many
  /// bytes at once, and compared with `memcmp`.
  fileprivate static func offset(of word: UnsafeBufferPointer<UInt8>, in text: UnsafeBufferPointer<UInt8>) -> Int? {
    guard let wordStart = word.baseAddress, let textStart = text.baseAddress, !word.isEmpty, text.count >= word.count else {
      return nil
    }
    let last = text.count - word.count  // the last offset where the word fits
    var offset = 0
    while offset <= last {
      guard let found = memchr(textStart + offset, Int32(word[0]), last - offset + 1) else { return nil }
      offset = UnsafeRawPointer(found) - UnsafeRawPointer(textStart)
      if memcmp(textStart + offset, wordStart, word.count) == 0 { return offset }
      offset += 1
    }
    return nil
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
    var bytes = word
    let searched: Int?? = withContiguousStorageIfAvailable { text in bytes.withUTF8 { String.offset(of: $0, in: text) } }
    if let searched {  // the text's bytes were searched in place
      guard let offset = searched else { return nil }
      let start = index(startIndex, offsetBy: offset)
      return start..<index(start, offsetBy: word.utf8.count)
    }
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
