#!/usr/bin/env bash
# What `leak-detector capture PID` and `analyze CORE` cost on a process of 100,000 and of
# 1,000,000 live objects (Benchmarks/CapturePid/Heap.swift, built -O), and what they find against
# the tracker's own snapshot of the same process: the program runs under
# `leak-detector run --snapshot-signal USR2`, and is captured both by its agent (the tracker's
# snapshot) and from its memory (`capture --read-memory`), then dumped with gcore and analysed.
# Prints, per size: the pause, the capture's whole time, gcore's time, analyze's time on the
# core, and the objects of each type found both ways.
# Usage: Benchmarks/capture-pid.sh [SIZES...]   (default: 100000 1000000)
# BIN=<directory> uses an existing release build of leak-detector and its agent.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=("${@:-100000 1000000}")
if [ "$#" -eq 0 ]; then SIZES=(100000 1000000); fi

if [ -z "${BIN:-}" ]; then
  for product in leak-detector LeakDetectorAgent LeakDetectorPreload; do swift build -c release --product "$product" >&2; done
  BIN=.build/release
fi
BIN=$(cd "$BIN" && pwd)
WORK=$(mktemp -d)
cleanup() { exec 3>&- 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
swiftc -O -g Benchmarks/CapturePid/Heap.swift -o "$WORK/heap" >&2

seconds() { python3 -c 'import sys,time; print(f"{time.time():.3f}")'; }

for size in "${SIZES[@]}"; do
  mkfifo "$WORK/in-$size"
  (cd "$WORK" && "$BIN/leak-detector" run --snapshot-signal USR2 --output "$WORK/report-$size" -- "$WORK/heap" "$size" \
    < "$WORK/in-$size" > "$WORK/out-$size" 2> "$WORK/err-$size") &
  exec 3> "$WORK/in-$size"
  until grep -q ready "$WORK/out-$size" 2> /dev/null; do sleep 0.1; done
  pid=$(pgrep -f "^$WORK/heap $size\$")
  "$BIN/leak-detector" capture "$pid" --output "$WORK/agent-$size.json" 2> /dev/null
  start=$(seconds)
  "$BIN/leak-detector" capture "$pid" --read-memory --output "$WORK/memory-$size.json" 2> "$WORK/capture-$size.err"
  end=$(seconds)
  pause=$(grep -oE "stopped for [0-9]+ ms" "$WORK/capture-$size.err" | grep -oE "[0-9]+")
  start_core=$(seconds)
  gcore -o "$WORK/core" "$pid" > /dev/null 2>&1
  end_core=$(seconds)
  exec 3>&-
  wait
  start_analyze=$(seconds)
  "$BIN/leak-detector" analyze "$WORK/core.$pid" > /dev/null 2>&1 || true
  end_analyze=$(seconds)
  python3 - "$size" "$pause" "$start" "$end" "$start_core" "$end_core" "$start_analyze" "$end_analyze" \
    "$WORK/agent-$size.json" "$WORK/memory-$size.json" "$(stat -c %s "$WORK/core.$pid")" <<'PY'
import collections, json, sys
size, pause = sys.argv[1], sys.argv[2]
capture = float(sys.argv[4]) - float(sys.argv[3])
gcore = float(sys.argv[6]) - float(sys.argv[5])
analyze = float(sys.argv[8]) - float(sys.argv[7])
def types(path):
    return collections.Counter(o["type"] for o in json.load(open(path))["objects"])
agent, memory = types(sys.argv[9]), types(sys.argv[10])
print(f"{int(size):,} objects: pause {pause} ms, capture {capture:.2f} s, gcore {gcore:.2f} s "
      f"(core {int(sys.argv[11]) / 1e6:.0f} MB), analyze CORE {analyze:.2f} s")
for name in sorted(set(agent) | set(memory), key=lambda n: -agent.get(n, 0)):
    flag = "" if agent.get(name, 0) == memory.get(name, 0) else "   <- differs"
    print(f"  {name:60} tracker {agent.get(name, 0):>9,}   from memory {memory.get(name, 0):>9,}{flag}")
PY
  cp "$WORK/agent-$size.json" "$WORK/memory-$size.json" /tmp/ 2>/dev/null || true; rm -f "$WORK"/core.*
done
