/// The data a label can carry: the text of a dictionary's `String` key, which a capture writes
/// so that `pending["https://example.com/avatar.png"]` says which entry holds the object. Such
/// text may be a user's data (URLs, session ids, e-mail addresses), so what is made to be shared
/// shows it as `pending[…]`: reports unless asked otherwise, baselines, and every fingerprint,
/// which therefore stays the same whatever the keys were in a run.
///
/// ```text
/// Cache.pending["https://example.com/a?session=4242"] → Request.owner → Cache
/// Cache.pending[…] → Request.owner → Cache
/// ```
///
/// Keys of other types (`[42]`, `[0x7f3a…]`) are written as before: an integer key reads like
/// an array's index.
public enum DataLabel {
  /// The elision that replaces a key's text.
  public static let elision = "…"

  /// `label` with the text of each quoted key (`["…"]`, escapes included) elided.
  public static func redacted(_ label: String) -> String {
    guard label.containsBytes("[\"") else { return label }
    var result = ""
    var rest = Substring(label)
    while let open = rest.firstRange(of: "[\"") {
      result += rest[..<open.lowerBound]
      guard let close = closingQuote(in: rest[open.upperBound...]) else {
        result += rest[open.lowerBound...]
        return result
      }
      result += "[" + elision + "]"
      rest = rest[close...]
    }
    return result + rest
  }

  /// The index just after the `"]` that ends the quoted text `text` starts with, skipping
  /// escaped characters (`\"`, `\\`).
  private static func closingQuote(in text: Substring) -> Substring.Index? {
    var index = text.startIndex
    while index < text.endIndex {
      let character = text[index]
      if character == "\\" {
        index = text.index(after: index)
        if index < text.endIndex { index = text.index(after: index) }
        continue
      }
      if character == "\"" {
        let next = text.index(after: index)
        if next < text.endIndex && text[next] == "]" { return text.index(after: next) }
      }
      index = text.index(after: index)
    }
    return nil
  }
}
