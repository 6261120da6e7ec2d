#!/usr/bin/env bash
# What the forked capture adds to a capture: builds capture-bench in release at the working tree
# and at BASE (default: the last in-process revision) in a worktree under .build/ (kept, so that
# a second run does not build it again), then runs them in turn ROUNDS times (default 5) with
# THREADS busy threads (default 8) and prints each median, so the two are compared in the same run.
# capture-bench is in the benchmarks' package (Benchmarks/); a BASE from before that package
# existed gets it as a target of its root package.
set -euo pipefail
cd "$(dirname "$0")/.."

base="${1:-ae81db0}"
rounds="${2:-5}"
threads="${3:-8}"
worktree=".build/capture-overhead-$base"
[ -d "$worktree" ] || git worktree add --detach "$worktree" "$base" >/dev/null
mkdir -p "$worktree/Benchmarks/CaptureBench"
cp Benchmarks/CaptureBench/main.swift "$worktree/Benchmarks/CaptureBench/"
if [ -f "$worktree/Benchmarks/Package.swift" ]; then
  old_package="$worktree/Benchmarks"
else
  old_package="$worktree"
  grep -q '"capture-bench"' "$worktree/Package.swift" || sed -i 's|^  targets: \[|  targets: [\n    .executableTarget(name: "capture-bench", dependencies: ["LeakDetector"], path: "Benchmarks/CaptureBench"),|' "$worktree/Package.swift"
fi
swift build --package-path "$old_package" -c release --product capture-bench >&2
# --disable-build-manifest-caching: SwiftPM plans a build anew only when the package it builds
# changes, and would miss a file added to or removed from the library, a dependency by path.
swift build --package-path Benchmarks -c release --disable-build-manifest-caching --product capture-bench >&2
new="$(swift build --package-path Benchmarks -c release --show-bin-path)/capture-bench"
old="$(swift build --package-path "$old_package" -c release --show-bin-path)/capture-bench"
for round in $(seq 1 "$rounds"); do
  echo "round $round: in-process ($base): $("$old" 100000 "$threads" 5)"
  echo "round $round: forked (working tree): $("$new" 100000 "$threads" 5)"
done
