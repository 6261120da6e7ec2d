#!/usr/bin/env bash
# The heap explorer (`analyze --format html`) of a synthetic heap of 1,000,000 objects and
# 3,000,000 references (heap-synth), against its limits:
#   - the page is no larger than the binary snapshot of the same heap;
#   - headless Chromium draws its first view in under 3 s (the page's `explorer-first-view`
#     mark, from the start of navigation: reading the file, decoding the data, drawing);
#   - every click is answered in under 200 ms: from the click to the next frame after the view
#     shows its result, measured in the page for each view.
# Prints one line per measure with its limit, and exits 1 if any is over.
# Usage: Benchmarks/explorer-scale.sh [OBJECTS [REFERENCES]]   (default: 1000000 3000000)
# BIN=<directory> uses an existing release build of leak-detector; SYNTH=<file> an existing
# heap-synth. The browser is the tests' (Scripts/bootstrap.sh --tests installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
OBJECTS=${1:-1000000}
REFERENCES=${2:-3000000}

if [ -z "${BIN:-}" ]; then
  swift build -c release --product leak-detector >&2
  BIN=.build/release
fi
if [ -z "${SYNTH:-}" ]; then
  swift build -c release --package-path Benchmarks --product heap-synth >&2
  SYNTH=Benchmarks/.build/release/heap-synth
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

echo "explorer-scale: $OBJECTS objects, $REFERENCES references" >&2
"$SYNTH" --objects "$OBJECTS" --references "$REFERENCES" --output "$WORK/heap.json" >&2
"$BIN/leak-detector" convert "$WORK/heap.json" --to binary --output "$WORK/heap.heapsnapshot" >&2
rm "$WORK/heap.json"
start=$(date +%s.%N)
status=0
"$BIN/leak-detector" analyze "$WORK/heap.heapsnapshot" --format html --layout built-in --output "$WORK/explorer.html" 2> /dev/null || status=$?
end=$(date +%s.%N)
if [ "$status" -ne 0 ] && [ "$status" -ne 2 ]; then
  echo "explorer-scale: analyze exited $status" >&2
  exit 1
fi
snapshot_bytes=$(stat -c %s "$WORK/heap.heapsnapshot")
page_bytes=$(stat -c %s "$WORK/explorer.html")

exec .build/browser-tests/bin/python - "$WORK/explorer.html" "$snapshot_bytes" "$page_bytes" "$(echo "$end - $start" | bc)" << 'PYTHON'
import sys, time
sys.path.insert(0, "Tests/Browser")
import browser
from selenium.webdriver.common.by import By

page, snapshot_bytes, page_bytes, write_seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
rows = []
def report(name, value, limit, unit):
    rows.append((name, value, limit, unit))
    print(f"{name:<44} {value:>12,.0f} {unit:<5} limit {limit:>12,} {unit:<5} {'ok' if value <= limit else 'OVER'}", flush=True)

print(f"{'analyze --format html (write the page)':<44} {write_seconds * 1000:>12,.0f} ms")
report("page size (binary snapshot: the limit)", page_bytes, snapshot_bytes, "bytes")
driver = browser.chromium()
driver.set_script_timeout(60)
try:
    driver.get("file://" + page)
    first = None
    for _ in range(600):
        first = driver.execute_script("return window.explorerFirstView")
        if first:
            break
        time.sleep(0.05)
    report("first view drawn", first or 1e9, 3000, "ms")

    # `act` runs in the page; the time is from just before it to the frame after `done` is true.
    def latency(name, act, done):
        ms = driver.execute_async_script(f"""
            const finish = arguments[arguments.length - 1];
            const start = performance.now();
            {act}
            (function poll() {{
              if ({done}) requestAnimationFrame(() => setTimeout(() => finish(performance.now() - start), 0));
              else if (performance.now() - start > 20000) finish(1e9);
              else requestAnimationFrame(poll);
            }})();
        """)
        report("click: " + name, ms, 200, "ms")

    q = "document.querySelector"
    latency("Types tab", f"{q}('nav a[data-view=types]').click();", f"!{q}('#view-types').hidden && {q}('#types tbody tr')")
    latency("Types: sort by count", f"{q}('#types th[data-key=count]').click();", f"{q}('#types th[data-key=count]').getAttribute('aria-sort')")
    latency("Types: search 'type1'", f"const s = {q}('#search'); s.value = 'type1'; s.dispatchEvent(new Event('input'));",
            f"/matching/.test({q}('#types-status').textContent)")
    latency("Types: a type's instances", f"{q}('#types tr.type-row td').click();", f"{q}('#types tr.instances li')")
    latency("Dominators tab", f"{q}('nav a[data-view=dominators]').click();", f"!{q}('#view-dominators').hidden && {q}('#dominator-tree .tree-row')")
    latency("Dominators: expand the largest", f"{q}('#dominator-tree .tree-row .toggle:not([disabled])').click();",
            f"{q}('#dominator-tree .tree-row[data-depth=\"1\"]')")
    latency("Dominators: show 100 more (top level)",
            f"window.__rows = document.querySelectorAll('#dominator-tree .tree-row').length; {q}('#dominator-tree .tree-row.more[data-depth=\"0\"] button').click();",
            "document.querySelectorAll('#dominator-tree .tree-row').length > window.__rows")
    latency("Inspector: first object", f"{q}('#dominator-tree a.obj').click();", f"!{q}('#view-inspector').hidden && {q}('#inspected')")
    latency("Inspector: a field's object",
            f"window.__id = {q}('#inspected').textContent; {q}('#fields a.obj, #referrers a.obj').click();",
            f"{q}('#inspected') && {q}('#inspected').textContent !== window.__id")
    latency("Back button", "window.__id = document.querySelector('#inspected').textContent; history.back();",
            f"{q}('#inspected') && {q}('#inspected').textContent !== window.__id")
    latency("Summary tab", f"{q}('nav a[data-view=summary]').click();", f"!{q}('#view-summary').hidden")
    latency("Leaks tab", f"{q}('nav a[data-view=leaks]').click();", f"!{q}('#view-leaks').hidden")
    latency("Leaks: a group's instances", f"{q}('#view-leaks details[data-group]').open = true;", f"{q}('#view-leaks ol.instances li')")
    latency("Leaks: show 100 more groups", f"window.__n = document.querySelectorAll('article.leak-group').length; ({q}('button.more-groups') || {{click() {{}}}}).click();",
            "document.querySelectorAll('article.leak-group').length > window.__n || !document.querySelector('button.more-groups')")
    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    if errors:
        print("browser errors:", errors)
        sys.exit(1)
finally:
    driver.quit()
sys.exit(1 if any(value > limit for _, value, limit, _ in rows) else 0)
PYTHON
