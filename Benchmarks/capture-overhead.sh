#!/usr/bin/env bash
# What the forked capture adds to a capture: builds capture-bench in release at the working tree
# and at BASE (default: the last in-process revision) in a temporary worktree, then runs them in
# turn ROUNDS times (default 5) and prints each median, so the two are compared in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."

base="${1:-ae81db0}"
rounds="${2:-5}"
workdir="$(mktemp -d)"
trap 'git worktree remove --force "$workdir/base" >/dev/null 2>&1 || true; rm -rf "$workdir"' EXIT
git worktree add --detach "$workdir/base" "$base" >/dev/null
mkdir -p "$workdir/base/Benchmarks/CaptureBench"
cp Benchmarks/CaptureBench/main.swift "$workdir/base/Benchmarks/CaptureBench/"
grep -q '"capture-bench"' "$workdir/base/Package.swift" || sed -i 's|^  targets: \[|  targets: [\n    .executableTarget(name: "capture-bench", dependencies: ["LeakDetector"], path: "Benchmarks/CaptureBench"),|' "$workdir/base/Package.swift"
(cd "$workdir/base" && swift build -c release --product capture-bench >&2)
swift build -c release --product capture-bench >&2
new="$(swift build -c release --show-bin-path)/capture-bench"
old="$(cd "$workdir/base" && swift build -c release --show-bin-path)/capture-bench"
for round in $(seq 1 "$rounds"); do
  echo "round $round: in-process ($base): $("$old" 100000 8 5)"
  echo "round $round: forked (working tree): $("$new" 100000 8 5)"
done
