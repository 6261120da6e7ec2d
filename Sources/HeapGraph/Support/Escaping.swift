/// `text` with the five XML special characters escaped, for attribute values and text.
func xmlEscaped(_ text: String) -> String {
  var out = ""
  for character in text {
    switch character {
    case "&": out += "&amp;"
    case "<": out += "&lt;"
    case ">": out += "&gt;"
    case "\"": out += "&quot;"
    case "'": out += "&apos;"
    default: out.append(character)
    }
  }
  return out
}

/// `text` with `|` escaped, for a Markdown table cell.
func markdownEscaped(_ text: String) -> String {
  var out = ""
  for character in text {
    if character == "|" { out += "\\" }
    out.append(character)
  }
  return out
}
