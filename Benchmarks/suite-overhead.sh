#!/usr/bin/env bash
# What `leak-detector run -- swift test` costs a real test suite: for each PACKAGE directory, its
# tests are built once (debug, as a developer runs them), then run ROUNDS times plainly
# (`swift test --skip-build`) and under `leak-detector run`, alternating, and the medians
# compared. The run's JSON report gives each checked process's exit capture; the rest of the
# difference is the tracking while the tests run, the agent's start-up and the analysis after
# the tests end (timed apart: `analyze` of the kept exit snapshots).
#
#   Benchmarks/suite-overhead.sh [ROUNDS] PACKAGE...
set -euo pipefail
cd "$(dirname "$0")/.."

rounds="${1:-5}"
shift || true
[ "$#" -gt 0 ] || { echo "usage: Benchmarks/suite-overhead.sh [ROUNDS] PACKAGE..." >&2; exit 1; }
swift build -c release --product leak-detector >&2
swift build -c release --product LeakDetectorAgent >&2
tool="$(swift build -c release --show-bin-path)/leak-detector"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

seconds_of() {  # wall seconds of a command, its output discarded, whatever its status
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || true
  end=$(date +%s.%N)
  python3 -c "print(f'{$end - $start:.3f}')"
}

for package in "$@"; do
  package="$(cd "$package" && pwd)"
  name="$(basename "$package")"
  (cd "$package" && swift build --build-tests >&2)
  plain=(); run=(); capture=(); analysis=()
  for round in $(seq 1 "$rounds"); do
    plain+=("$(seconds_of swift test --skip-build --package-path "$package")")
    rm -rf "$out/snapshots" && mkdir "$out/snapshots"
    run+=("$(seconds_of "$tool" run --format json --output "$out/report.json" --snapshot "$out/snapshots/exit.json" \
      -- swift test --skip-build --package-path "$package")")
    capture+=("$(python3 -c "
import json, sys
report = json.load(open('$out/report.json'))
print(sum(p.get('captureMilliseconds', 0) for p in report['processes']) / 1000)")")
    analysis+=("$(seconds_of "$tool" analyze "$out"/snapshots/*)")
    echo "$name round $round: plain ${plain[-1]} s, run ${run[-1]} s (exit captures ${capture[-1]} s, analysis ${analysis[-1]} s)" >&2
  done
  python3 - "$name" "${plain[*]}" "${run[*]}" "${capture[*]}" "${analysis[*]}" <<'EOF'
import json, statistics, sys
name = sys.argv[1]
plain, run, capture, analysis = ([float(v) for v in arg.split()] for arg in sys.argv[2:6])
median = statistics.median
print(json.dumps({
    "package": name,
    "seconds": {"plain": plain, "run": run, "exitCaptures": capture, "analysis": analysis},
    "runOverPlain": round(median(run) / median(plain), 3),
    "added": {
        "total": round(median(run) - median(plain), 3),
        "exitCaptures": round(median(capture), 3),
        "analysis": round(median(analysis), 3),
        "trackingAndStartUp": round(median(run) - median(plain) - median(capture) - median(analysis), 3),
    },
}, indent=2))
EOF
done
