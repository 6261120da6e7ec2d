#!/usr/bin/env bash
# What `leak-detector run` costs a program, as ratios measured in one run:
#   - an allocation-heavy program (binary trees) plainly, under `run --no-stacks` and under
#     `run` (with stacks), each ROUNDS times alternating, medians compared;
#   - the exit capture and analysis of a program that keeps LIVE objects alive (the run's time
#     minus the plain run's);
#   - making TASKS tasks that do nothing, plainly and under `run` (each task is remembered, with
#     its creation stack), ROUNDS times alternating, medians compared.
# Usage: Benchmarks/run-overhead.sh [ROUNDS] [DEPTH] [LIVE] [TASKS]
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
DEPTH=${2:-16}
LIVE=${3:-1000000}
TASKS=${4:-200000}

for product in leak-detector LeakDetectorAgent LeakDetectorPreload; do swift build -c release --product "$product" >&2; done
BIN=.build/release
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
swiftc -O -g Benchmarks/RunOverhead/AllocationHeavy.swift -o "$WORK/allocation-heavy" >&2

seconds() {  # wall seconds of a command, its output discarded
  local start end
  start=$(date +%s.%N)
  "$@" > /dev/null 2>&1 || true
  end=$(date +%s.%N)
  python3 -c "print(f'{$end - $start:.3f}')"
}

median() { python3 -c "import statistics,sys; print(f'{statistics.median(map(float, sys.argv[1:])):.3f}')" "$@"; }

plain=() nostacks=() stacks=()
for _ in $(seq "$ROUNDS"); do
  plain+=("$(seconds "$WORK/allocation-heavy" "$DEPTH")")
  nostacks+=("$(seconds "$BIN/leak-detector" run --no-stacks -- "$WORK/allocation-heavy" "$DEPTH")")
  stacks+=("$(seconds "$BIN/leak-detector" run -- "$WORK/allocation-heavy" "$DEPTH")")
done
p=$(median "${plain[@]}") n=$(median "${nostacks[@]}") s=$(median "${stacks[@]}")
tasks_plain=() tasks_run=()
for _ in $(seq "$ROUNDS"); do
  tasks_plain+=("$(seconds "$WORK/allocation-heavy" tasks "$TASKS")")
  tasks_run+=("$(seconds "$BIN/leak-detector" run -- "$WORK/allocation-heavy" tasks "$TASKS")")
done
tp=$(median "${tasks_plain[@]}") tr=$(median "${tasks_run[@]}")
live_plain=$(seconds "$WORK/allocation-heavy" live "$LIVE")
live_run=$(seconds "$BIN/leak-detector" run --no-stacks -- "$WORK/allocation-heavy" live "$LIVE")
live_stacks=$(seconds "$BIN/leak-detector" run -- "$WORK/allocation-heavy" live "$LIVE")
python3 - "$p" "$n" "$s" "$live_plain" "$live_run" "$live_stacks" "$DEPTH" "$LIVE" "$ROUNDS" "$tp" "$tr" "$TASKS" <<'PY'
import sys
p, n, s, lp, lr, ls = map(float, sys.argv[1:7])
depth, live, rounds = sys.argv[7:10]
tp, tr = map(float, sys.argv[10:12])
tasks = int(sys.argv[12])
print(f"| measure (binary trees, depth {depth}; medians of {rounds}) | seconds | ratio to plain |")
print("| --- | --- | --- |")
print(f"| plain run | {p:.3f} | 1.00× |")
print(f"| `leak-detector run --no-stacks` | {n:.3f} | {n / p:.2f}× |")
print(f"| `leak-detector run` (stacks) | {s:.3f} | {s / p:.2f}× |")
print(f"| {int(live):,} live objects at exit: plain run | {lp:.3f} | |")
print(f"| the same under `run --no-stacks` (exit capture and analysis added) | {lr:.3f} | +{lr - lp:.2f} s |")
print(f"| the same under `run` (stacks) | {ls:.3f} | +{ls - lp:.2f} s |")
print(f"| {tasks:,} tasks made and awaited: plain run | {tp:.3f} | 1.00× |")
print(f"| the same under `run` (stacks; each task remembered) | {tr:.3f} | {tr / tp:.2f}× |")
PY
