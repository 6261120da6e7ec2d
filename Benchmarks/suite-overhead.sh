#!/usr/bin/env bash
# What `leak-detector run -- swift test` costs a real test suite: for each PACKAGE directory, its
# tests are built once (debug, as a developer runs them), then run ROUNDS times plainly
# (`swift test --skip-build`) and under `leak-detector run`, alternating, and the medians
# compared, in wall time and in the CPU time of all their processes (steadier on a shared
# machine, where a sub-second suite's wall time varies by half). The run's JSON report gives each
# checked process's exit capture, and the time from the end of `swift test` to the end of `run`
# is the analysis; the rest of the difference is the tracking while the tests run and the
# agent's start-up.
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
swift build -c release --product LeakDetectorPreload >&2
tool="$(swift build -c release --show-bin-path)/leak-detector"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

measure() {  # "WALL CPU": the wall seconds of a command and its processes' CPU seconds (user + system), its output discarded, whatever its status
  python3 -c '
import resource, subprocess, sys, time
start = time.time()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
wall = time.time() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{wall:.3f} {usage.ru_utime + usage.ru_stime:.3f}")' "$@"
}

for package in "$@"; do
  package="$(cd "$package" && pwd)"
  name="$(basename "$package")"
  # shellcheck disable=SC2086  # BUILD_FLAGS are words
  (cd "$package" && swift build --build-tests ${BUILD_FLAGS:-} >&2)
  plain=(); run=(); plainCPU=(); runCPU=(); capture=(); analysis=()
  for round in $(seq 1 "$rounds"); do
    read -r wall cpu < <(measure swift test --skip-build --package-path "$package")
    plain+=("$wall"); plainCPU+=("$cpu")
    read -r wall cpu < <(measure "$tool" run --process '*.xctest' --format json --output "$out/report.json" \
      -- sh -c 'swift test --skip-build --package-path "$1"; status=$?; date +%s.%N > "$2"; exit $status' sh "$package" "$out/ended")
    end=$(date +%s.%N)
    run+=("$wall"); runCPU+=("$cpu")
    analysis+=("$(python3 -c "print(f'{$end - $(cat "$out/ended"):.3f}')")")
    capture+=("$(python3 -c "
import json
report = json.load(open('$out/report.json'))
print(sum(p.get('captureMilliseconds', 0) for p in report['processes']) / 1000)")")
    echo "$name round $round: plain ${plain[-1]} s (CPU ${plainCPU[-1]} s), run ${run[-1]} s (CPU ${runCPU[-1]} s; exit captures ${capture[-1]} s, after the tests ${analysis[-1]} s)" >&2
  done
  python3 - "$name" "${plain[*]}" "${run[*]}" "${capture[*]}" "${analysis[*]}" "${plainCPU[*]}" "${runCPU[*]}" <<'EOF'
import json, statistics, sys
name = sys.argv[1]
plain, run, capture, analysis, plain_cpu, run_cpu = ([float(v) for v in arg.split()] for arg in sys.argv[2:8])
median = statistics.median
print(json.dumps({
    "package": name,
    "seconds": {"plain": plain, "run": run, "exitCaptures": capture, "afterTheTests": analysis},
    "cpuSeconds": {"plain": plain_cpu, "run": run_cpu},
    "runOverPlain": round(median(run) / median(plain), 3),
    "runOverPlainInCPU": round(median(run_cpu) / median(plain_cpu), 3),
    "added": {
        "total": round(median(run) - median(plain), 3),
        "exitCaptures": round(median(capture), 3),
        "afterTheTests": round(median(analysis), 3),
        "trackingAndStartUp": round(median(run) - median(plain) - median(capture) - median(analysis), 3),
    },
}, indent=2))
EOF
done
