#!/usr/bin/env bash
# How long `ProcessImage.capture` stops a process, and how long reading its gcore core takes, for
# a fixture with 100 MiB and 1 GiB of touched heap (or the sizes given: `process-image-pause.sh
# 100,1024,4096`). Three captures and three core reads each; prints min/median/max. Runs the
# debug test build's PauseBenchmark (the copy is the kernel's process_vm_readv either way).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests >/dev/null
PROCESS_IMAGE_BENCHMARK_MEGABYTES="${1:-100,1024}" \
  swift test --skip-build --filter 'ProcessImageTests.PauseBenchmark' 2>&1 | grep -E 'process-image benchmark|error'
