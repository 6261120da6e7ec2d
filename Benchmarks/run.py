#!/usr/bin/env python3
"""Benchmark of `leak-detector analyze` on synthetic heaps (see Benchmarks/README.md).

1. A 1,000,000-object / 3,000,000-reference heap with 10,000 planted cycles (lengths 2-20) and
   dense components: wall time and peak memory of the whole run (read, parse, graph, search,
   JSON report), median of several runs; checks that every planted cycle is in the report.
2. The same heap at 100,000 objects, and a sparse one (2,000 planted cycles, no dense
   components), side by side with networkx loading the file, building the graph and running
   simple_cycles(G, length_bound=20) on its strong edges: times, cycle counts, and the ratios.

3. Reflection of live objects (reflection-bench): 100,000 objects of 20 types, cold and warm
   `references(of:)`, a Mirror walk of the same objects as the peer, and RetainCycleDetector
   from one candidate reaching all of them.

4. Allocation tracking (allocation-baseline, allocation-bench): the same allocation loop in a
   program without the library and in one with it (tracking off, on, on with stacks, sampled), 7
   processes each, interleaved, median of each process's best; plus cached symbolization and a
   snapshot of 100,000 tracked objects.

5. Leak checks in tests (leak-check-bench): trackForLeaks and generation mode against the same
   tests without checks.

6. Encodings: the 1,000,000-object heap converted to the binary encoding; analyze on each
   encoding against Python's bare json.load of the JSON (a child process each, alternating),
   wall time and peak memory, and bytes per object.

Usage: Benchmarks/run.py [--runs N] [--skip-networkx] [--only-reflection] [--only-tracking] [--only-leak-checks]
       [--only-encodings] [--only-networkx]

Every program, leak-detector included, is built in release in the benchmarks' package
(Benchmarks/, a package of its own that depends on the library's by path), into Benchmarks/.build.
"""
import json
import os
import resource
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Benchmarks", "out")
# The benchmarks' package, which builds its programs and, as a product of its dependency, leak-detector.
PACKAGE = os.path.join(ROOT, "Benchmarks")
BIN = os.path.join(PACKAGE, ".build", "release")
# SwiftPM plans a build anew only when the package it builds changes, and would miss a file added
# to or removed from the library, a dependency by path.
FRESH_PLAN = ["--disable-build-manifest-caching"]


def run(command, **kwargs):
    print("+ " + " ".join(command), file=sys.stderr, flush=True)
    return subprocess.run(command, check=True, **kwargs)


def timed_child(command):
    """Runs a command in a child process (exit status 0 or 2, as leak-detector's when it finds
    something); returns (wall seconds, peak RSS in MiB of that child)."""
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 2):
        sys.exit(f"{' '.join(command[:2])} failed with exit code {code}")
    return wall, usage.ru_maxrss / 1024.0


def timed_analyze(snapshot, report):
    """Runs analyze in a child process; returns (wall seconds, peak RSS in MiB of that child)."""
    return timed_child([os.path.join(BIN, "leak-detector"), "analyze", snapshot, "--format", "json", "--output", report])


def encodings(snapshot, runs):
    """analyze on the JSON and on its binary encoding, against Python's json.load of the JSON."""
    binary = snapshot.replace(".json", ".heapsnapshot")
    run([os.path.join(BIN, "leak-detector"), "convert", snapshot, "--output", binary])
    samples = {"pythonJsonLoad": [], "analyzeJSON": [], "analyzeBinary": []}
    for _ in range(runs):  # alternating, so drift hits each alike
        samples["pythonJsonLoad"].append(timed_child([sys.executable, "-c", "import json,sys; json.load(open(sys.argv[1]))", snapshot]))
        samples["analyzeJSON"].append(timed_analyze(snapshot, os.devnull))
        samples["analyzeBinary"].append(timed_analyze(binary, os.devnull))
    median = {name: statistics.median(wall for wall, _ in values) for name, values in samples.items()}
    peak = {name: round(max(rss for _, rss in values)) for name, values in samples.items()}
    result = {
        "jsonMB": round(os.path.getsize(snapshot) / 1e6, 1),
        "binaryMB": round(os.path.getsize(binary) / 1e6, 1),
        "medianWallSeconds": {name: round(value, 2) for name, value in median.items()},
        "peakMB": peak,
        "ratioAnalyzeBinaryOverJsonLoad": round(median["analyzeBinary"] / median["pythonJsonLoad"], 2),
        "ratioAnalyzeJSONOverJsonLoad": round(median["analyzeJSON"] / median["pythonJsonLoad"], 2),
        # peak RSS (MiB) against the JSON file's size (MiB)
        "peakAnalyzeBinaryOverJsonFileSize": round(peak["analyzeBinary"] / (os.path.getsize(snapshot) / 2**20), 2),
    }
    print(json.dumps(result, indent=2), flush=True)
    return result


def rotated(ids):
    smallest = ids.index(min(ids))
    return tuple(ids[smallest:] + ids[:smallest])


def check_planted(manifest_path, report_path):
    manifest = json.load(open(manifest_path))
    report = json.load(open(report_path))
    found = {rotated([e["object"] for e in c["elements"]]) for c in report["cycles"]}
    planted = [rotated(c) for c in manifest["plantedCycles"]]
    missing = [c for c in planted if c not in found]
    return len(planted), len(missing), report["summary"]


def synthesize(name, objects, references, cycles, dense, dense_size):
    snapshot = os.path.join(OUT, f"{name}.json")
    manifest = os.path.join(OUT, f"{name}.planted.json")
    run([os.path.join(BIN, "heap-synth"), "--objects", str(objects), "--references", str(references),
         "--cycles", str(cycles), "--dense-components", str(dense), "--dense-size", str(dense_size),
         "--output", snapshot, "--manifest", manifest])
    return snapshot, manifest


def networkx_cycles(snapshot):
    try:
        import networkx as nx
    except ImportError:
        run([sys.executable, "-m", "pip", "install", "-q", "networkx"])
        import networkx as nx
    start = time.perf_counter()
    data = json.load(open(snapshot))
    graph = nx.DiGraph()
    graph.add_nodes_from(o["id"] for o in data["objects"])
    graph.add_edges_from((r["from"], r["to"]) for r in data["references"] if r["ownership"] == "strong")
    loaded = time.perf_counter()
    count = sum(1 for _ in nx.simple_cycles(graph, length_bound=20))
    done = time.perf_counter()
    return count, loaded - start, done - loaded


def networkx_side_by_side(name, dense, runs):
    """A 100,000-object heap with 2,000 planted cycles and `dense` dense components: analyze (whole
    run, median of `runs`) against networkx loading it, building the graph and running simple_cycles."""
    snapshot, manifest = synthesize(name, 100_000, 300_000, 1_000 if dense else 2_000, dense, 12)
    report = os.path.join(OUT, f"{name}.report.json")
    ours = [timed_analyze(snapshot, report) for _ in range(runs)]
    planted, missing, summary = check_planted(manifest, report)
    count, load_seconds, cycle_seconds = networkx_cycles(snapshot)
    ours_median = statistics.median(w for w, _ in ours)
    result = {
        "components": summary["components"],
        "leakDetectorMedianWallSeconds": round(ours_median, 3),
        "leakDetectorCyclesFound": summary["cyclesFound"],
        "networkxLoadSeconds": round(load_seconds, 2),
        "networkxSimpleCyclesSeconds": round(cycle_seconds, 2),
        "networkxCycles": count,
        "countsAgree": count == summary["cyclesFound"],
        "ratioNetworkxCyclesOnlyOverLeakDetectorWholeRun": round(cycle_seconds / ours_median, 1),
        "ratioNetworkxWholeOverLeakDetectorWholeRun": round((load_seconds + cycle_seconds) / ours_median, 1),
        "plantedCycles": planted, "plantedMissing": missing,
    }
    print(json.dumps(result, indent=2), flush=True)
    return result


def repeated(product, runs):
    """Builds `product` and runs it `runs` times (one process each); prints and returns every result."""
    run(["swift", "build", "-c", "release", *FRESH_PLAN, "--product", product], cwd=PACKAGE)
    results = []
    for _ in range(runs):
        output = subprocess.run([os.path.join(BIN, product)], check=True, capture_output=True, text=True).stdout
        results.append(json.loads(output))
        print(output.strip(), flush=True)
    return results


def reflection(runs):
    return repeated("reflection-bench", runs)


def leak_checks(runs):
    return repeated("leak-check-bench", runs)


def tracking(processes=7):
    """Allocation cost per configuration: median over processes of each one's best repetition."""
    for product in ("allocation-baseline", "allocation-bench"):
        run(["swift", "build", "-c", "release", *FRESH_PLAN, "--product", product], cwd=PACKAGE)
    commands = {
        "baseline": [os.path.join(BIN, "allocation-baseline")],
        "off": [os.path.join(BIN, "allocation-bench"), "off"],
        "tracked": [os.path.join(BIN, "allocation-bench"), "tracked"],
        "stacks": [os.path.join(BIN, "allocation-bench"), "stacks"],
        "sampled": [os.path.join(BIN, "allocation-bench"), "sampled"],
    }
    samples = {name: [] for name in commands}
    for _ in range(processes):
        for name, command in commands.items():  # interleaved, so drift hits every configuration
            output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
            samples[name].append(json.loads(output)["nanoseconds"])
    medians = {name: statistics.median(values) for name, values in samples.items()}
    extras = json.loads(subprocess.run([os.path.join(BIN, "allocation-bench"), "extras"], check=True,
                                       capture_output=True, text=True).stdout)
    result = {
        "nanosecondsPerAllocation": {name: round(value, 1) for name, value in medians.items()},
        "ratios": {
            "offOverBaseline": round(medians["off"] / medians["baseline"], 2),
            "trackedOverBaseline": round(medians["tracked"] / medians["baseline"], 2),
            "stacksOverBaseline": round(medians["stacks"] / medians["baseline"], 2),
            "sampledOverBaseline": round(medians["sampled"] / medians["baseline"], 3),
        },
        "samples": {name: [round(value, 1) for value in values] for name, values in samples.items()},
        "snapshotOf100kSeconds": round(extras["snapshotSeconds"], 3),
        "cachedFramesPerSecond": extras["cachedFramesPerSecond"],
    }
    print(json.dumps(result, indent=2), flush=True)
    return result


def main():
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 3
    os.makedirs(OUT, exist_ok=True)
    if "--only-reflection" in sys.argv:
        reflection(runs)
        return
    if "--only-tracking" in sys.argv:
        tracking()
        return
    if "--only-leak-checks" in sys.argv:
        leak_checks(runs)
        return
    if "--only-networkx" in sys.argv:
        for product in ("leak-detector", "heap-synth"):
            run(["swift", "build", "-c", "release", *FRESH_PLAN, "--product", product], cwd=PACKAGE)
        for name, dense in (("heap-100k", 4), ("heap-100k-sparse", 0)):
            result = networkx_side_by_side(name, dense, runs)
            if result["plantedMissing"] or not result["countsAgree"]:
                sys.exit(1)
        return
    if "--only-encodings" in sys.argv:
        for product in ("leak-detector", "heap-synth"):
            run(["swift", "build", "-c", "release", *FRESH_PLAN, "--product", product], cwd=PACKAGE)
        snapshot, _ = synthesize("heap-1m", 1_000_000, 3_000_000, 10_000, 4, 12)
        encodings(snapshot, runs)
        return
    run(["swift", "build", "-c", "release", *FRESH_PLAN, "--product", "leak-detector"], cwd=PACKAGE)
    run(["swift", "build", "-c", "release", *FRESH_PLAN, "--product", "heap-synth"], cwd=PACKAGE)
    results = {}

    snapshot, manifest = synthesize("heap-1m", 1_000_000, 3_000_000, 10_000, 4, 12)
    report = os.path.join(OUT, "heap-1m.report.json")
    measurements = [timed_analyze(snapshot, report) for _ in range(runs)]
    planted, missing, summary = check_planted(manifest, report)
    results["1m"] = {
        "snapshotMB": round(os.path.getsize(snapshot) / 1e6),
        "wallSeconds": [round(w, 2) for w, _ in measurements],
        "medianWallSeconds": round(statistics.median(w for w, _ in measurements), 2),
        "peakMB": round(max(m for _, m in measurements)),
        "plantedCycles": planted, "plantedMissing": missing, "summary": summary,
    }
    print(json.dumps(results["1m"], indent=2), flush=True)
    results["encodings"] = encodings(snapshot, runs)

    if "--skip-networkx" not in sys.argv:
        results["100k"] = networkx_side_by_side("heap-100k", 4, runs)
        results["100kSparse"] = networkx_side_by_side("heap-100k-sparse", 0, runs)

    results["reflection"] = reflection(runs)
    results["tracking"] = tracking()
    results["leakChecks"] = leak_checks(runs)

    with open(os.path.join(OUT, "results.json"), "w") as f:
        json.dump(results, f, indent=2)
    failed = results["1m"]["plantedMissing"] or any(
        results.get(name, {}).get("countsAgree") is False or results.get(name, {}).get("plantedMissing")
        for name in ("100k", "100kSparse"))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
