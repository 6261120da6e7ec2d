#!/usr/bin/env python3
"""What allocation tracking costs on several allocation patterns, as ratios to the plain loop.

Each pattern of `AllocationLoop/AllocationPattern.swift` (two-size-ring, churn, threads, growth) is
timed in one process per configuration, the configurations interleaved round after round, and
each configuration's figure is the minimum over the rounds of every process's best repetition:

  plain         allocation-baseline PATTERN (the library not linked)
  tracked       allocation-bench tracked PATTERN (in-process tracking, no stacks)
  stacks        allocation-bench stacks PATTERN (in-process, with allocation stacks)
  run           leak-detector run --no-stacks -- allocation-baseline PATTERN (the loader's forwarding included)
  run-stacks    leak-detector run -- allocation-baseline PATTERN
  run-sampled   leak-detector run --sample-interval 524288 -- allocation-baseline PATTERN

Usage:
  Benchmarks/tracking-patterns.py [--rounds N] [--small] [--patterns a,b] [--no-build]
  Benchmarks/tracking-patterns.py --small --check THRESHOLDS.json   # CI: exit 1 on a ratio over its threshold
  Benchmarks/tracking-patterns.py --small --write-thresholds THRESHOLDS.json   # after an intended change

Prints a Markdown table (ns per allocation + deallocation, and each ratio to plain) and, with
--json FILE, writes the figures there. Only ratios measured in the same run are compared; absolute
times are printed for people.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PATTERNS = ["two-size-ring", "churn", "threads", "growth"]
# The goals each configuration is held to (the ratio to plain at most).
GOALS = {"tracked": 1.15, "stacks": 1.5, "run": 1.15, "run-stacks": 1.5, "run-sampled": 1.03}


def option(name, default=None):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def build():
    # Everything in this folder's package (the tool, its agent and loader as products of the
    # dependency), so that the library is built once.
    for product in ("allocation-baseline", "allocation-bench", "leak-detector", "LeakDetectorAgent", "LeakDetectorPreload"):
        subprocess.run(["swift", "build", "-c", "release", "--product", product], cwd=HERE, check=True, stdout=sys.stderr)


def commands(pattern, small):
    bench = os.path.join(HERE, ".build", "release")
    tool = os.path.join(bench, "leak-detector")
    size = ["small"] if small else []
    baseline = [os.path.join(bench, "allocation-baseline"), pattern, *size]
    # Run from a scratch directory; the program's own output line is what is read.
    run = [tool, "run"]
    return {
        "plain": baseline,
        "tracked": [os.path.join(bench, "allocation-bench"), "tracked", pattern, *size],
        "stacks": [os.path.join(bench, "allocation-bench"), "stacks", pattern, *size],
        "run": [*run, "--no-stacks", "--", *baseline],
        "run-stacks": [*run, "--", *baseline],
        "run-sampled": [*run, "--sample-interval", "524288", "--", *baseline],
    }


def measure(command, work):
    result = subprocess.run(command, capture_output=True, text=True, cwd=work)
    for line in result.stdout.splitlines():
        if line.startswith('{"configuration"'):
            return json.loads(line)["nanoseconds"]
    raise SystemExit(f"no figure from {' '.join(command)} (exit {result.returncode}):\n{result.stdout}\n{result.stderr}")


def main():
    small = "--small" in sys.argv
    rounds = int(option("--rounds", "11" if small else "12"))  # small: about 15 s in all
    patterns = option("--patterns", ",".join(PATTERNS)).split(",")
    if "--no-build" not in sys.argv:
        build()
    figures = {}
    with tempfile.TemporaryDirectory() as work:
        for pattern in patterns:
            configurations = commands(pattern, small)
            samples = {name: [] for name in configurations}
            for _ in range(rounds):
                for name, command in configurations.items():  # interleaved: drift hits every configuration
                    samples[name].append(measure(command, work))
            best = {name: min(values) for name, values in samples.items()}
            figures[pattern] = {
                "nanoseconds": {name: round(value, 2) for name, value in best.items()},
                "ratios": {name: round(best[name] / best["plain"], 3) for name in best if name != "plain"},
            }
            print(f"{pattern}: " + ", ".join(f"{name} {value:.1f}" for name, value in best.items()), file=sys.stderr, flush=True)

    names = list(GOALS)
    print(f"| pattern ({'small, ' if small else ''}min of {rounds} processes, each the best of 9) | plain ns | "
          + " | ".join(f"{name} ns (ratio)" for name in names) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in names) + " |")
    for pattern, figure in figures.items():
        cells = [f"{figure['nanoseconds'][name]:.1f} ({figure['ratios'][name]:.2f}×)" for name in names]
        print(f"| {pattern} | {figure['nanoseconds']['plain']:.1f} | " + " | ".join(cells) + " |")
    print(f"| goal | | " + " | ".join(f"≤ {GOALS[name]:.2f}×" for name in names) + " |")

    if option("--json"):
        with open(option("--json"), "w") as file:
            json.dump({"rounds": rounds, "small": small, "patterns": figures}, file, indent=2)

    thresholds_path = option("--check")
    if thresholds_path:
        with open(thresholds_path) as file:
            committed = json.load(file)
        tolerance = committed["tolerance"]
        failures, gains = [], []
        for pattern, limits in committed["ratios"].items():
            for name, threshold in limits.items():
                if pattern not in figures:
                    continue
                ratio = figures[pattern]["ratios"][name]
                if ratio > threshold * (1 + tolerance):
                    failures.append(f"{pattern} {name}: {ratio:.3f}× against {threshold:.3f}× committed (tolerance {tolerance:.0%})")
                elif ratio < threshold / (1 + tolerance):
                    gains.append(f"{pattern} {name}: {ratio:.3f}× against {threshold:.3f}× committed")
        for gain in gains:
            print(f"tracking-patterns: better than the threshold: {gain}; run with --write-thresholds to keep it", file=sys.stderr)
        for failure in failures:
            print(f"tracking-patterns: worse than the threshold: {failure}", file=sys.stderr)
        if failures:
            print("tracking-patterns: a tracking ratio regressed; profile the pattern (Benchmarks/README.md, "
                  "\"Allocation patterns\") or, for an intended change, run "
                  f"Benchmarks/tracking-patterns.py --small --write-thresholds {os.path.relpath(thresholds_path, ROOT)}",
                  file=sys.stderr)
            sys.exit(1)

    written = option("--write-thresholds")
    if written:
        with open(written, "w") as file:
            json.dump({
                "comment": "Ratios to the plain loop of Benchmarks/tracking-patterns.py --small on this project's machines; "
                           "--check fails on a ratio over a threshold by more than the tolerance.",
                "tolerance": 0.15,
                # Rounded up to 0.05, and at least 1 (a ratio under 1 is the machine's noise, not a
                # gain to hold the next run to): one lucky run should not set the bar.
                "ratios": {pattern: {name: max(math.ceil(ratio * 20) / 20, 1.0) for name, ratio in figure["ratios"].items()}
                           for pattern, figure in figures.items()},
            }, file, indent=2, ensure_ascii=False)
            file.write("\n")

if __name__ == "__main__":
    main()
