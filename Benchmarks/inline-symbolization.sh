#!/usr/bin/env bash
# What symbolizing inline chains costs at an exit capture: a generated program (-O -g, function
# merging off so that each function keeps its code) with FUNCTIONS functions in one unit, each
# allocating an instance of its own class through an inlined initializer, so that every object
# has its own allocation address with an inlined frame. `leak-detector run` on it ROUNDS times;
# prints each capture time and the median (the capture includes symbolizing every stack).
# Usage: Benchmarks/inline-symbolization.sh [ROUNDS] [FUNCTIONS]
# BIN=<directory> uses an existing build of leak-detector and its agent instead of building one.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
FUNCTIONS=${2:-800}

if [ -z "${BIN:-}" ]; then
  for product in leak-detector LeakDetectorAgent LeakDetectorPreload; do swift build -c release --product "$product" >&2; done
  BIN=.build/release
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
{
  echo 'nonisolated(unsafe) var kept: [AnyObject] = []'
  for k in $(seq 0 $((FUNCTIONS - 1))); do
    echo "final class C$k { var v$k: Int; init() { v$k = $k } }"
    echo "@inline(never) func make$k() { kept.append(C$k()) }"
  done
  for k in $(seq 0 $((FUNCTIONS - 1))); do echo "make$k()"; done
} > "$WORK/Many.swift"
echo "compiling $FUNCTIONS functions" >&2
swiftc -O -g -Xfrontend -disable-llvm-merge-functions-pass "$WORK/Many.swift" -o "$WORK/many" >&2

times=()
for _ in $(seq "$ROUNDS"); do
  seconds=$("$BIN/leak-detector" run -- "$WORK/many" 2>&1 | sed -n 's/.*captured in \([0-9.]*\) s.*/\1/p')
  echo "captured in $seconds s"
  times+=("$seconds")
done
printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END { print "median: " a[int((NR + 1) / 2)] " s" }'
