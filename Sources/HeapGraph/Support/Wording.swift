/// `"1 cycle"`, `"12,000 cycles"`, `"2 processes"`.
func count(_ value: Int, _ noun: String) -> String {
  "\(grouped(value)) \(noun)\(value == 1 ? "" : noun.hasSuffix("s") ? "es" : "s")"
}

/// `12345` as `"12,345"`.
func grouped(_ value: Int) -> String {
  let digits = String(value.magnitude)
  var result = ""
  for (index, digit) in digits.enumerated() {
    if index > 0 && (digits.count - index) % 3 == 0 { result += "," }
    result.append(digit)
  }
  return value < 0 ? "-" + result : result
}
