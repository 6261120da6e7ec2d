#!/usr/bin/env bash
# What `leak-detector capture PID` and `analyze CORE` cost on a process of 100,000 and of
# 1,000,000 live objects (Benchmarks/CapturePid/Heap.swift, built -O), and what they find against
# the tracker's own snapshot of the same process.
#   - timings: the program runs plainly (no tool started it); `capture PID` reports the pause and
#     takes its whole time; gcore dumps it; `analyze CORE` reads the core.
#   - counts: the program runs under `leak-detector run --snapshot-signal USR2`; its agent's
#     snapshot (the tracker's) and `capture --read-memory` (its memory) are compared type by type.
# Usage: Benchmarks/capture-pid.sh [SIZES...]   (default: 100000 1000000)
# BIN=<directory> uses an existing release build of leak-detector and its agent.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=("$@")
if [ "$#" -eq 0 ]; then SIZES=(100000 1000000); fi

if [ -z "${BIN:-}" ]; then
  for product in leak-detector LeakDetectorAgent LeakDetectorPreload; do swift build -c release --product "$product" >&2; done
  BIN=.build/release
fi
BIN=$(cd "$BIN" && pwd)
WORK=$(mktemp -d)
trap 'pkill -P $$ 2> /dev/null || true; rm -rf "$WORK"' EXIT
swiftc -O -g Benchmarks/CapturePid/Heap.swift -o "$WORK/heap" >&2

now() { date +%s.%N; }

# Starts `$@` with its standard input held open by a writer the caller closes (fd 3), and
# waits until it prints `ready`.
start() {
  local name=$1
  shift
  rm -f "$WORK/in-$name"
  mkfifo "$WORK/in-$name"
  (cd "$WORK" && "$@" < "$WORK/in-$name" > "$WORK/out-$name" 2> "$WORK/err-$name") &
  exec 3> "$WORK/in-$name"
  until grep -q ready "$WORK/out-$name" 2> /dev/null; do sleep 0.1; done
}

for size in "${SIZES[@]}"; do
  start "plain-$size" "$WORK/heap" "$size"
  pid=$(pgrep -f "^$WORK/heap $size\$")
  t0=$(now)
  "$BIN/leak-detector" capture "$pid" --output "$WORK/plain-$size.heapsnapshot" 2> "$WORK/capture-$size.err"
  t1=$(now)
  gcore -o "$WORK/core" "$pid" > /dev/null 2>&1
  t2=$(now)
  exec 3>&-
  wait
  "$BIN/leak-detector" analyze "$WORK/core.$pid" > /dev/null 2>&1 || true
  t3=$(now)
  core_size=$(stat -c %s "$WORK/core.$pid")
  rm -f "$WORK"/core.*
  pause=$(grep -oE "stopped for [0-9]+ ms" "$WORK/capture-$size.err" | grep -oE "[0-9]+")
  rss=$(grep -oE "RSS [0-9.]+ [KMG]iB" "$WORK/capture-$size.err" || true)

  start "run-$size" "$BIN/leak-detector" run --snapshot-signal USR2 --output "$WORK/report-$size" -- "$WORK/heap" "$size"
  pid=$(pgrep -f "^$WORK/heap $size\$")
  "$BIN/leak-detector" capture "$pid" --output "$WORK/agent-$size.json" 2> /dev/null
  "$BIN/leak-detector" capture "$pid" --read-memory --output "$WORK/memory-$size.json" 2> /dev/null
  exec 3>&-
  wait

  python3 - "$size" "$pause" "$t0" "$t1" "$t2" "$t3" "$core_size" "$WORK/agent-$size.json" "$WORK/memory-$size.json" <<'PY'
import collections, json, sys
size, pause, t0, t1, t2, t3, core = sys.argv[1], sys.argv[2], *map(float, sys.argv[3:7]), int(sys.argv[7])
def types(path):
    return collections.Counter(o["type"] for o in json.load(open(path))["objects"])
agent, memory = types(sys.argv[8]), types(sys.argv[9])
print(f"{int(size):,} objects: capture PID pause {pause} ms, whole capture {t1 - t0:.2f} s; "
      f"gcore {t2 - t1:.2f} s (core {core / 1e6:.0f} MB); analyze CORE {t3 - t2:.2f} s")
same = sum(1 for name in agent if agent[name] == memory.get(name, 0))
print(f"  types the tracker knows: {len(agent)}, found with the same count from memory: {same}")
for name in sorted(set(agent) | set(memory), key=lambda n: (-agent.get(n, 0), n)):
    if agent.get(name, 0) != memory.get(name, 0) or agent.get(name, 0) >= 1000:
        print(f"  {name:60} tracker {agent.get(name, 0):>9,}   from memory {memory.get(name, 0):>9,}")
PY
done
