#!/usr/bin/env bash
# The CI leak gate on this repository's own demo: FeedApp runs under the allocation tracker and
# captures a snapshot of what its dismissed screen leaked; `leak-detector gate` compares the
# findings with Baselines/leaks.json (its planted leaks, accepted with reasons) and fails only on
# a new leak. Writes leaks.sarif next to the snapshot for code-scanning upload. FeedApp is a
# package of its own (Examples/FeedApp, built in its own .build); the tool is this package's.
set -euo pipefail
cd "$(dirname "$0")/.."

demo=Examples/FeedApp
# --disable-build-manifest-caching: SwiftPM plans a build anew only when the package it builds
# changes, and would miss a file added to or removed from the library, a dependency by path.
swift build --package-path "$demo" --disable-build-manifest-caching --product leak-detector-demo >&2
swift build --product leak-detector >&2
bin="$(swift build --show-bin-path)"
out="$(mktemp -d)"
"$(swift build --package-path "$demo" --show-bin-path)/leak-detector-demo" "$out/feed-app.heapsnapshot.json" >&2
echo "== leak-detector gate (baseline Baselines/leaks.json)" >&2
"$bin/leak-detector" gate "$out/feed-app.heapsnapshot.json" --baseline Baselines/leaks.json --format sarif --output "$out/leaks.sarif" || true
"$bin/leak-detector" gate "$out/feed-app.heapsnapshot.json" --baseline Baselines/leaks.json
