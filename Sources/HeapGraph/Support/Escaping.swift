/// `text` for XML attribute values and text: the five special characters escaped, tab, line feed
/// and carriage return as character references (so that attribute values keep them), and the
/// characters XML 1.0 cannot hold at all (other C0 controls, U+FFFE, U+FFFF), which type names
/// and labels from a snapshot file may contain, replaced with U+FFFD.
///
/// It works by scalar, not by character: `&` followed by a combining mark is one character, but
/// XML still reads the `&`.
func xmlEscaped(_ text: String) -> String {
  var out = ""
  for scalar in text.unicodeScalars {
    switch scalar {
    case "&": out += "&amp;"
    case "<": out += "&lt;"
    case ">": out += "&gt;"
    case "\"": out += "&quot;"
    case "'": out += "&apos;"
    case "\t": out += "&#9;"
    case "\n": out += "&#10;"
    case "\r": out += "&#13;"
    case "\u{0}"..."\u{1F}", "\u{FFFE}", "\u{FFFF}": out.unicodeScalars.append("\u{FFFD}")
    default: out.unicodeScalars.append(scalar)
    }
  }
  return out
}

/// `text` for a cell of a Markdown table: `|` and `\` escaped with a backslash, `<` too (so that
/// `box<Int>` is not taken for an HTML tag and hidden), and line breaks (line feed, carriage
/// return or both), which would end the row, written as `<br>`. By scalar, as ``xmlEscaped(_:)``.
func markdownEscaped(_ text: String) -> String {
  var out = ""
  var previous: Unicode.Scalar?
  for scalar in text.unicodeScalars {
    defer { previous = scalar }
    switch scalar {
    case "|", "\\", "<":
      out += "\\"
      out.unicodeScalars.append(scalar)
    case "\n" where previous == "\r": continue
    case "\n", "\r": out += "<br>"
    default: out.unicodeScalars.append(scalar)
    }
  }
  return out
}

/// `text` in double quotes, with `"`, `\` and line feeds escaped as in C (`\"`, `\\`, `\n`): for
/// DOT strings and for dictionary keys in reference labels. By scalar, not by character: a quote
/// followed by a combining mark is one character, but a reader still sees the quote.
package func doubleQuoted(_ text: String) -> String {
  var out = "\""
  for scalar in text.unicodeScalars {
    switch scalar {
    case "\"": out += "\\\""
    case "\\": out += "\\\\"
    case "\n": out += "\\n"
    default: out.unicodeScalars.append(scalar)
    }
  }
  return out + "\""
}
