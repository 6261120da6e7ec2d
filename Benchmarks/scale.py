#!/usr/bin/env python3
"""How `leak-detector analyze` scales with the heap (see Benchmarks/README.md, "Scaling to ten
million objects").

1. heap-synth writes heaps of 1, 3 and 10 million objects (three references each, the planted
   cycles and dense components of the other benchmarks), converted to the binary encoding that
   captures of this size write. Each `analyze --format json` is a child process: its wall time
   and peak resident set (wait4's ru_maxrss), median of --runs, sizes interleaved so that the
   machine's drift hits each alike; then seconds and megabytes per million objects, and each
   size's ratio to the smallest (linear growth keeps the ratios near 1).
2. Reading the 1,000,000-object heap's JSON as the tool reads it (snapshot-read-bench, timed in
   its process) against Python's json.load of the same file (timed in its process), alternating:
   the ratio of the medians.
3. Peak memory of analyze on the 1,000,000-object heap, on its JSON and on its binary encoding,
   against the JSON file's size.
4. With --before BINARY, an older leak-detector is run on the same files, alternating with this
   one, and both JSON reports are compared byte for byte (--now-argument --show-data keeps
   dictionary keys' text, as revisions before the redaction of keys wrote it).

Usage: Benchmarks/scale.py [--sizes 1,3,10] [--runs N] [--before BINARY] [--now-argument ARG]
                           [--scratch-path DIR] [--skip-build]
(heaps and reports go to Benchmarks/out/scale/). The three programs are built in release in the
benchmarks' package (Benchmarks/, leak-detector as a product of its dependency), into
Benchmarks/.build unless --scratch-path names another folder.
"""
import argparse
import filecmp
import json
import os
import statistics
import subprocess
import sys
import time

from run import FRESH_PLAN, PACKAGE, run, timed_child  # run.py beside this file: one way to run and time a child

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Benchmarks", "out", "scale")
PRODUCTS = ("leak-detector", "heap-synth", "snapshot-read-bench")


def heap_files(binaries, millions):
    """The JSON and binary files of the heap of `millions` million objects, made if missing."""
    json_path = os.path.join(OUT, f"heap-{millions}m.json")
    binary_path = os.path.join(OUT, f"heap-{millions}m.heapsnapshot")
    if not os.path.exists(json_path):
        objects = millions * 1_000_000
        run([binaries["heap-synth"], "--objects", str(objects), "--references", str(3 * objects),
             "--cycles", str(10_000 if millions == 1 else 20_000), "--dense-components", "4", "--dense-size", "12",
             "--output", json_path], stdout=subprocess.DEVNULL)
    if not os.path.exists(binary_path):
        run([binaries["leak-detector"], "convert", json_path, "--to", "binary", "--output", binary_path])
    return json_path, binary_path


def analyze(binary, snapshot, report, arguments=()):
    wall, peak_mib = timed_child([binary, "analyze", snapshot, "--format", "json", "--output", report, *arguments])
    return wall, peak_mib * 1024 * 1024


def scaling(binaries, sizes, runs, before, now_arguments):
    """analyze on each size's binary file, interleaved; with `before`, the older binary too."""
    files = {millions: heap_files(binaries, millions) for millions in sizes}
    tools = {"now": binaries["leak-detector"]} | ({"before": before} if before else {})
    arguments = {"now": now_arguments, "before": []}
    samples = {(tool, millions): [] for tool in tools for millions in sizes}
    for _ in range(runs):
        for millions in sizes:
            for tool, binary in tools.items():
                report = os.path.join(OUT, f"report-{tool}-{millions}m.json")
                samples[(tool, millions)].append(analyze(binary, files[millions][1], report, arguments[tool]))
    rows = {}
    for (tool, millions), values in samples.items():
        seconds = statistics.median(wall for wall, _ in values)
        peak = max(rss for _, rss in values)
        rows.setdefault(tool, {})[millions] = {
            "medianSeconds": round(seconds, 2), "seconds": [round(wall, 2) for wall, _ in values],
            "peakMB": round(peak / 1e6), "secondsPerMillionObjects": round(seconds / millions, 3),
            "peakMBPerMillionObjects": round(peak / 1e6 / millions, 1)}
    for tool in rows:
        smallest = rows[tool][min(sizes)]
        for millions, row in rows[tool].items():
            row["timePerObjectRatioToSmallest"] = round(row["secondsPerMillionObjects"] / smallest["secondsPerMillionObjects"], 2)
            row["memoryPerObjectRatioToSmallest"] = round(row["peakMBPerMillionObjects"] / smallest["peakMBPerMillionObjects"], 2)
    if before:
        rows["sameReports"] = {
            millions: filecmp.cmp(os.path.join(OUT, f"report-now-{millions}m.json"),
                                  os.path.join(OUT, f"report-before-{millions}m.json"), shallow=False)
            for millions in sizes}
    return rows


def json_reading(binaries, runs):
    """The 1,000,000-object heap's JSON read as the tool reads it, against json.load."""
    json_path, _ = heap_files(binaries, 1)
    ours, python = [], []
    for _ in range(runs):
        output = subprocess.run([binaries["snapshot-read-bench"], json_path], check=True, capture_output=True, text=True)
        ours.append(json.loads(output.stdout)["seconds"])
        output = subprocess.run(
            [sys.executable, "-c", "import json,sys,time; t=time.perf_counter(); json.load(open(sys.argv[1])); print(time.perf_counter()-t)",
             json_path], check=True, capture_output=True, text=True)
        python.append(float(output.stdout))
    return {"jsonMB": round(os.path.getsize(json_path) / 1e6, 1),
            "snapshotReadSeconds": [round(value, 3) for value in ours],
            "pythonJsonLoadSeconds": [round(value, 3) for value in python],
            "ratio": round(statistics.median(ours) / statistics.median(python), 2)}


def memory(binaries, runs):
    """Peak memory of analyze on the 1,000,000-object heap against its JSON file's size."""
    json_path, binary_path = heap_files(binaries, 1)
    size = os.path.getsize(json_path)
    result = {"jsonFileMB": round(size / 1e6, 1)}
    for name, path in (("binary", binary_path), ("json", json_path)):
        peak = max(analyze(binaries["leak-detector"], path, os.devnull)[1] for _ in range(runs))
        result[name] = {"peakMB": round(peak / 1e6), "overJsonFileSize": round(peak / size, 2)}
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1,3,10", help="heap sizes in millions of objects")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--before", help="an older leak-detector binary to run alternately")
    parser.add_argument("--now-argument", action="append", default=[], help="an argument for this revision's analyze only")
    parser.add_argument("--scratch-path", default=os.path.join(PACKAGE, ".build"))
    parser.add_argument("--skip-build", action="store_true")
    options = parser.parse_args()
    os.makedirs(OUT, exist_ok=True)
    if not options.skip_build:
        for product in PRODUCTS:
            run(["swift", "build", "-c", "release", "--scratch-path", options.scratch_path, *FRESH_PLAN, "--product", product],
                cwd=PACKAGE)
    binaries = {product: os.path.join(options.scratch_path, "release", product) for product in PRODUCTS}
    sizes = sorted(int(size) for size in options.sizes.split(","))
    results = {
        "scaling": scaling(binaries, sizes, options.runs, options.before, options.now_argument),
        "jsonReading": json_reading(binaries, options.runs),
        "memory": memory(binaries, options.runs),
    }
    with open(os.path.join(OUT, "results.json"), "w") as file:
        json.dump(results, file, indent=2)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
