/// A self-contained HTML report page: its style and its one script are inline, so the file
/// works offline, attached to a CI run or opened from a mail. Sections are appended as HTML
/// text; ``escaped(_:)`` makes names and labels safe to put in it.
///
/// Tables with the class `sortable` sort by a column when its header is clicked (numbers by
/// value, the rest as text). The page's address can ask for an order:
/// `report.html#sort=leak-groups:retained:desc` sorts the table `leak-groups` by its column
/// `retained`, largest first, which makes a sorted view a link to share. A ``filter(for:placeholder:)``
/// box above a table hides the rows that do not contain what is typed in it.
struct HTMLPage {
  var title: String
  /// The line under the title: what was analysed.
  var subtitle: String
  /// The page's body, after its header.
  var body = ""

  /// `text` for HTML text and attribute values.
  static func escaped(_ text: String) -> String { xmlEscaped(text) }

  /// A summary tile: a number and what it counts; `tone` is `bad`, `good` or `neutral`.
  static func tile(_ value: String, _ label: String, tone: String, link: String? = nil) -> String {
    let inner = "<span class=\"value\">\(escaped(value))</span><span class=\"label\">\(escaped(label))</span>"
    return link.map { "<a class=\"tile \(tone)\" href=\"#\($0)\">\(inner)</a>" } ?? "<div class=\"tile \(tone)\">\(inner)</div>"
  }

  /// A table; `columns` are (key, title, isNumeric). Rows are already escaped cells; numeric
  /// cells carry their value in `data-value` when it differs from the text (`1,048`).
  static func table(id: String, columns: [(key: String, title: String, isNumeric: Bool)], rows: [[String]], sortable: Bool = true)
    -> String
  {
    var out = "<table id=\"\(escaped(id))\"\(sortable ? " class=\"sortable\"" : "")><thead><tr>"
    for column in columns {
      out += "<th data-key=\"\(escaped(column.key))\"\(column.isNumeric ? " data-numeric" : "")>\(escaped(column.title))</th>"
    }
    out += "</tr></thead><tbody>\n"
    for row in rows { out += "<tr>" + row.map { "<td>\($0)</td>" }.joined() + "</tr>\n" }
    return out + "</tbody></table>\n"
  }

  /// A filter box for the table `tableID`: typing in it keeps the rows whose text contains what
  /// was typed (ignoring case) and hides the others; the table's `data-shown` says how many are
  /// left.
  static func filter(for tableID: String, placeholder: String) -> String {
    "<input type=\"search\" class=\"filter\" data-table=\"\(escaped(tableID))\" placeholder=\"\(escaped(placeholder))\" "
      + "aria-label=\"\(escaped(placeholder))\">\n"
  }

  /// A numeric cell: the grouped number, sortable by its value.
  static func numberCell(_ value: Int) -> String { "<span data-value=\"\(value)\">\(grouped(value))</span>" }

  /// A source location cell: `Feed.swift:12`, with the full path as its tooltip.
  static func siteCell(_ frame: StackFrame?, names: NameStyle) -> String {
    guard let frame else { return "" }
    let location = frame.sourceLocation.map { "<span class=\"site\" title=\"\(escaped(frame.file ?? ""))\">\(escaped($0))</span>" } ?? ""
    return "<code>\(escaped(frame.symbol.map(names.symbol) ?? ""))</code> \(location)"
  }

  /// The whole document, with `script` as its one script (by default the sortable tables') and
  /// `extraStyle` after the shared style.
  func render(script: String = Self.script, extraStyle: String = "") -> String {
    """
    <!DOCTYPE html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="generator" content="leak-detector">
    <title>\(Self.escaped(title))</title>
    <style>\(Self.style)\(extraStyle)</style>
    </head>
    <body>
    <header><h1>\(Self.escaped(title))</h1><p class="subtitle">\(Self.escaped(subtitle))</p></header>
    <main>
    \(body)</main>
    <footer>Made by leak-detector. Names are written as in code; the JSON report has them in full.</footer>
    <script>\(script)</script>
    </body>
    </html>

    """
  }

  private static let style = """
    :root { --fg: #1d2433; --muted: #5b6478; --line: #d9dee8; --bad: #b42318; --bad-bg: #fef3f2; --good: #067647;
      --good-bg: #ecfdf3; --accent: #2e5aac; --node: #eef3fc; --closure: #fdf6e7; }
    * { box-sizing: border-box; }
    body { margin: 0; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: #fff; }
    header { padding: 20px 32px 12px; border-bottom: 1px solid var(--line); }
    h1 { margin: 0; font-size: 22px; }
    h2 { font-size: 18px; margin: 28px 0 10px; }
    h3 { font-size: 14px; margin: 0 0 6px; font-weight: 600; word-break: break-word; }
    .subtitle, .note, .muted { color: var(--muted); }
    main { padding: 8px 32px 32px; max-width: 1280px; }
    footer { padding: 16px 32px; color: var(--muted); border-top: 1px solid var(--line); font-size: 12px; }
    code, .chain { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
    .tiles { display: flex; gap: 12px; flex-wrap: wrap; margin: 16px 0; }
    .tile { display: flex; flex-direction: column; min-width: 150px; padding: 10px 16px; border-radius: 8px;
      border: 1px solid var(--line); text-decoration: none; color: inherit; }
    .tile .value { font-size: 24px; font-weight: 650; }
    .tile.bad { background: var(--bad-bg); border-color: #fecdca; } .tile.bad .value { color: var(--bad); }
    .tile.good { background: var(--good-bg); border-color: #abefc6; } .tile.good .value { color: var(--good); }
    .verdict { padding: 10px 14px; border-radius: 8px; font-weight: 600; }
    .verdict.bad { background: var(--bad-bg); color: var(--bad); } .verdict.good { background: var(--good-bg); color: var(--good); }
    article.cycle, article.finding { border: 1px solid var(--line); border-radius: 8px; padding: 14px 16px; margin: 12px 0; }
    .short { margin: 2px 0 8px; } .short code { background: #f4f6fa; padding: 1px 5px; border-radius: 4px; }
    .diagram { overflow-x: auto; margin: 6px 0; } .diagram svg { max-width: 100%; height: auto; }
    table { border-collapse: collapse; width: 100%; margin: 6px 0; }
    th, td { text-align: left; padding: 5px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
    th { background: #f6f8fb; font-weight: 600; white-space: nowrap; }
    table.sortable th { cursor: pointer; user-select: none; }
    th[aria-sort="ascending"]::after { content: " ▲"; } th[aria-sort="descending"]::after { content: " ▼"; }
    td span[data-value] { font-variant-numeric: tabular-nums; }
    .site { color: var(--accent); white-space: nowrap; }
    .fingerprint { color: var(--muted); font-family: ui-monospace, Menlo, monospace; font-size: 12px; }
    ol.path { margin: 4px 0; padding-left: 22px; } ol.path li { font-family: ui-monospace, Menlo, monospace; font-size: 12.5px; }
    .suspect { color: var(--bad); text-decoration: underline wavy; }
    .cycle-diagram text { font-family: ui-monospace, Menlo, monospace; }
    input.filter { font: inherit; padding: 4px 8px; margin: 4px 0; min-width: 280px; border: 1px solid var(--line); border-radius: 6px; }
    .status.new, .status.grown { color: var(--bad); font-weight: 600; } .status.gone, .status.shrunk { color: var(--good); }
    """

  static let script = """
    (function () {
      function cellValue(row, index, numeric) {
        var cell = row.cells[index];
        if (!cell) return numeric ? 0 : "";
        var marked = cell.querySelector("[data-value]");
        if (numeric) return parseFloat(marked ? marked.getAttribute("data-value") : cell.textContent) || 0;
        return cell.textContent.trim().toLowerCase();
      }
      function sortTable(table, index, descending) {
        var header = table.tHead.rows[0].cells[index];
        var numeric = header.hasAttribute("data-numeric");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = cellValue(a, index, numeric), y = cellValue(b, index, numeric);
          var order = x < y ? -1 : x > y ? 1 : 0;
          return descending ? -order : order;
        });
        rows.forEach(function (row) { body.appendChild(row); });
        Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell) { cell.removeAttribute("aria-sort"); });
        header.setAttribute("aria-sort", descending ? "descending" : "ascending");
        table.setAttribute("data-sorted", header.getAttribute("data-key") + ":" + (descending ? "desc" : "asc"));
      }
      Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
        Array.prototype.forEach.call(table.tHead.rows[0].cells, function (header, index) {
          header.addEventListener("click", function () {
            var descending = header.getAttribute("aria-sort") === "ascending";
            sortTable(table, index, descending);
            history.replaceState(null, "", "#sort=" + table.id + ":" + header.getAttribute("data-key") + ":" + (descending ? "desc" : "asc"));
          });
        });
      });
      Array.prototype.forEach.call(document.querySelectorAll("input.filter[data-table]"), function (input) {
        var table = document.getElementById(input.getAttribute("data-table"));
        if (!table || !table.tBodies[0]) return;
        input.addEventListener("input", function () {
          var query = input.value.trim().toLowerCase(), shown = 0;
          Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
            row.hidden = query !== "" && row.textContent.toLowerCase().indexOf(query) < 0;
            if (!row.hidden) shown += 1;
          });
          table.setAttribute("data-shown", String(shown));
        });
      });
      var match = /^#sort=([^:]+):([^:]+):(asc|desc)$/.exec(location.hash);
      if (match) {
        var table = document.getElementById(match[1]);
        if (table && table.tHead) {
          Array.prototype.forEach.call(table.tHead.rows[0].cells, function (header, index) {
            if (header.getAttribute("data-key") === match[2]) sortTable(table, index, match[3] === "desc");
          });
        }
      }
    })();
    """
}

extension HTMLPage {
  /// A cycle's drawing: by `graphviz` (Graphviz source to SVG, such as `dot -Tsvg`) when it is
  /// given and succeeds, otherwise by ``CycleDiagram/svg(id:)``.
  static func diagram(_ diagram: CycleDiagram, id: String, graphviz: ((String) -> String?)?) -> String {
    if let drawn = graphviz?(diagram.graphviz), let start = drawn.firstRange(of: "<svg") {
      return "<div class=\"diagram\" data-layout=\"graphviz\">\(drawn[start.lowerBound...])</div>"
    }
    return "<div class=\"diagram\" data-layout=\"built-in\">\(diagram.svg(id: id))</div>"
  }
}
