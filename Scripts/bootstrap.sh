#!/usr/bin/env bash
# Makes a fresh machine ready to build: checks for Swift, installs the system libraries the
# package links (libdw for symbolication, libunwind for allocation stacks, zlib for the gzipped
# heap profiles) when they are missing.
# With --tests, also what the tests use: headless Chromium and its WebDriver, with Selenium from
# PyPI in a virtual environment under .build/ (the HTML reports are rendered and clicked in it),
# Graphviz (the report's Graphviz layout), Go (`go tool pprof` reads the heap profiles), jemalloc
# and mimalloc (programs linked with or started under another allocator are run and captured), and
# gdb (its `gcore` dumps the core files the tests read).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v swift >/dev/null 2>&1; then
  echo "bootstrap: swift is not on PATH; install Swift 6.3 or newer (https://swift.org/install)" >&2
  exit 1
fi

packages=(libdw-dev libunwind-dev zlib1g-dev)
if [ "${1:-}" = "--tests" ]; then packages+=(chromium chromium-driver python3-venv graphviz golang-go libjemalloc-dev libmimalloc-dev gdb); fi
missing=()
for package in "${packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ "${1:-}" = "--tests" ] && ! .build/browser-tests/bin/python -c "import selenium" >/dev/null 2>&1; then
  echo "bootstrap: installing Selenium into .build/browser-tests" >&2
  python3 -m venv .build/browser-tests
  .build/browser-tests/bin/pip install -q "selenium>=4.20,<5"
fi
