#!/usr/bin/env bash
# What tracking costs per allocation in a program with the Swift runtime linked in
# (`-static-stdlib`, whose entry points the agent patches) against one on the shared runtime
# (whose entry points it interposes): a loop that allocates and frees small objects
# (Benchmarks/StaticOverhead/AllocationRing.swift) prints its best ns per allocation +
# deallocation plainly, under `run --no-stacks` and under `run` (stacks), ROUNDS times
# alternating; the medians are compared with the plain run of the same build, measured in the
# same rounds.
# Usage: Benchmarks/static-overhead.sh [ROUNDS] [ITERATIONS]
# BIN=<directory> uses an existing build of leak-detector and its agent instead of building one.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
ITERATIONS=${2:-2000000}

if [ -z "${BIN:-}" ]; then
  for product in leak-detector LeakDetectorAgent LeakDetectorPreload; do swift build -c release --product "$product" >&2; done
  BIN=.build/release
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
swiftc -O -g Benchmarks/StaticOverhead/AllocationRing.swift -o "$WORK/shared" >&2
swiftc -O -g -static-stdlib Benchmarks/StaticOverhead/AllocationRing.swift -o "$WORK/static" >&2

nanoseconds() {  # the program's own figure: the number it prints
  "$@" "$ITERATIONS" 2> /dev/null | grep -E "^[0-9.]+$" | tail -n 1
}

declare -A samples
for _ in $(seq "$ROUNDS"); do
  for build in shared static; do
    samples[$build-plain]+=" $(nanoseconds "$WORK/$build")"
    samples[$build-nostacks]+=" $(nanoseconds "$BIN/leak-detector" run --no-stacks --output "$WORK/report" -- "$WORK/$build" 2> /dev/null || true)"
    samples[$build-stacks]+=" $(nanoseconds "$BIN/leak-detector" run --output "$WORK/report" -- "$WORK/$build" 2> /dev/null || true)"
  done
done

python3 - "$ROUNDS" "$ITERATIONS" \
  "${samples[shared-plain]}" "${samples[shared-nostacks]}" "${samples[shared-stacks]}" \
  "${samples[static-plain]}" "${samples[static-nostacks]}" "${samples[static-stacks]}" <<'PY'
import statistics, sys
rounds, iterations = sys.argv[1:3]
medians = [statistics.median(float(value) for value in column.split()) for column in sys.argv[3:9]]
print(f"| ns per allocation + deallocation (medians of {rounds}, {int(iterations):,} iterations, best of 12) | shared runtime | ratio | runtime linked in | ratio |")
print("| --- | --- | --- | --- | --- |")
for index, label in enumerate(["plain run", "`leak-detector run --no-stacks`", "`leak-detector run` (stacks)"]):
    shared, linked = medians[index], medians[3 + index]
    print(f"| {label} | {shared:.1f} | {shared / medians[0]:.2f}× | {linked:.1f} | {linked / medians[3]:.2f}× |")
PY
