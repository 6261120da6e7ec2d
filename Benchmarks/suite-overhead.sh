#!/usr/bin/env bash
# What `leak-detector run -- swift test` costs a real test suite: for each PACKAGE directory, its
# tests are built once (debug, as a developer runs them), then run ROUNDS times plainly
# (`swift test --skip-build`) and under `leak-detector run`, alternating, and the medians
# compared. The run's JSON report gives each checked process's exit capture, and the time from
# the end of `swift test` to the end of `run` is the analysis; the rest of the difference is the
# tracking while the tests run and the agent's start-up.
#
#   Benchmarks/suite-overhead.sh [ROUNDS] PACKAGE...
#
# BUILD_FLAGS in the environment go to the one build of each package's tests (Swinject 2.10's
# tests build only in Swift 5 mode: BUILD_FLAGS="-Xswiftc -swift-version -Xswiftc 5").
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
  # shellcheck disable=SC2086  # BUILD_FLAGS are words
  (cd "$package" && swift build --build-tests ${BUILD_FLAGS:-} >&2)
  plain=(); run=(); capture=(); analysis=()
  for round in $(seq 1 "$rounds"); do
    plain+=("$(seconds_of swift test --skip-build --package-path "$package")")
    start=$(date +%s.%N)
    "$tool" run --process '*.xctest' --format json --output "$out/report.json" \
      -- sh -c 'swift test --skip-build --package-path "$1"; status=$?; date +%s.%N > "$2"; exit $status' sh "$package" "$out/ended" \
      >/dev/null 2>&1 || true
    end=$(date +%s.%N)
    run+=("$(python3 -c "print(f'{$end - $start:.3f}')")")
    analysis+=("$(python3 -c "print(f'{$end - $(cat "$out/ended"):.3f}')")")
    capture+=("$(python3 -c "
import json
report = json.load(open('$out/report.json'))
print(sum(p.get('captureMilliseconds', 0) for p in report['processes']) / 1000)")")
    echo "$name round $round: plain ${plain[-1]} s, run ${run[-1]} s (exit captures ${capture[-1]} s, after the tests ${analysis[-1]} s)" >&2
  done
  python3 - "$name" "${plain[*]}" "${run[*]}" "${capture[*]}" "${analysis[*]}" <<'EOF'
import json, statistics, sys
name = sys.argv[1]
plain, run, capture, analysis = ([float(v) for v in arg.split()] for arg in sys.argv[2:6])
median = statistics.median
print(json.dumps({
    "package": name,
    "seconds": {"plain": plain, "run": run, "exitCaptures": capture, "afterTheTests": analysis},
    "runOverPlain": round(median(run) / median(plain), 3),
    "added": {
        "total": round(median(run) - median(plain), 3),
        "exitCaptures": round(median(capture), 3),
        "afterTheTests": round(median(analysis), 3),
        "trackingAndStartUp": round(median(run) - median(plain) - median(capture) - median(analysis), 3),
    },
}, indent=2))
EOF
done
