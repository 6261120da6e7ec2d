#!/usr/bin/env bash
# What the run agent costs a real server under load: Benchmarks/VaporServer (Vapor 4, release)
# answers GET /order/:id (a few objects per request) to wrk on loopback, plain and under
# `leak-detector run --sample-interval BYTES` (default 524288, Go's rate), in alternating rounds
# so that drift hits both. Prints requests per second and p99 latency per round, and the median
# ratios (sampled / plain). On a machine with two cores or more the server (and the command that
# starts it) runs on the first and wrk on the second, so that neither takes the other's time: the
# server then has one event loop, and its throughput is that of one core.
#
#   Benchmarks/server-overhead.sh [ROUNDS] [SECONDS] [SAMPLE_INTERVAL]
set -euo pipefail
cd "$(dirname "$0")/.."

rounds="${1:-5}"
seconds="${2:-10}"
interval="${3:-524288}"
command -v wrk >/dev/null || { echo "server-overhead: needs wrk (apt-get install wrk)" >&2; exit 1; }
swift build -c release --product leak-detector >&2
swift build -c release --product LeakDetectorAgent >&2
swift build -c release --product LeakDetectorPreload >&2
(cd Benchmarks/VaporServer && swift build -c release >&2)
tool="$(swift build -c release --show-bin-path)/leak-detector"
server="$(cd Benchmarks/VaporServer && swift build -c release --show-bin-path)/VaporServer"
port=18080
out="$(mktemp -d)"
server_cpu=(); client_cpu=()
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then server_cpu=(taskset -c 0); client_cpu=(taskset -c 1); fi
trap 'rm -rf "$out"' EXIT

# Starts the server (plain or sampled), loads it for SECONDS, stops it; prints "rps p99_ms".
measure() {
  local mode="$1" pid
  if [ "$mode" = plain ]; then
    PORT=$port "${server_cpu[@]}" "$server" >/dev/null 2>&1 &
  else
    PORT=$port "${server_cpu[@]}" "$tool" run --sample-interval "$interval" --process VaporServer -- "$server" >/dev/null 2>"$out/run.err" &
  fi
  pid=$!
  for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$port/order/1" >/dev/null 2>&1 && break; sleep 0.1; done
  "${client_cpu[@]}" wrk -t1 -c16 -d1s "http://127.0.0.1:$port/order/7" >/dev/null  # warm-up
  "${client_cpu[@]}" wrk -t1 -c16 -d"${seconds}s" --latency "http://127.0.0.1:$port/order/7" >"$out/wrk.txt"
  kill -INT "$pid"
  wait "$pid" 2>/dev/null || true
  local rps p99
  rps="$(awk '/Requests\/sec/ {print $2}' "$out/wrk.txt")"
  p99="$(awk '$1 == "99%" {v=$2; if (v ~ /us$/) {sub("us","",v); v=v/1000} else if (v ~ /ms$/) {sub("ms","",v)} else if (v ~ /s$/) {sub("s","",v); v=v*1000}; print v}' "$out/wrk.txt")"
  echo "$rps $p99"
}

plain_rps=(); plain_p99=(); sampled_rps=(); sampled_p99=()
for round in $(seq 1 "$rounds"); do
  read -r rps p99 < <(measure plain)
  plain_rps+=("$rps"); plain_p99+=("$p99")
  read -r rps p99 < <(measure sampled)
  sampled_rps+=("$rps"); sampled_p99+=("$p99")
  echo "round $round: plain ${plain_rps[-1]} req/s, p99 ${plain_p99[-1]} ms; sampled ${sampled_rps[-1]} req/s, p99 ${sampled_p99[-1]} ms" >&2
done

python3 - "${plain_rps[*]}" "${sampled_rps[*]}" "${plain_p99[*]}" "${sampled_p99[*]}" "$interval" <<'EOF'
import json, statistics, sys
plain_rps, sampled_rps, plain_p99, sampled_p99 = ([float(v) for v in arg.split()] for arg in sys.argv[1:5])
ratio = lambda a, b: round(statistics.median(b) / statistics.median(a), 3)
print(json.dumps({
    "sampleInterval": int(sys.argv[5]),
    "requestsPerSecond": {"plain": plain_rps, "sampled": sampled_rps},
    "p99Milliseconds": {"plain": plain_p99, "sampled": sampled_p99},
    "sampledOverPlain": {"requestsPerSecond": ratio(plain_rps, sampled_rps), "p99": ratio(plain_p99, sampled_p99)},
}, indent=2))
EOF
