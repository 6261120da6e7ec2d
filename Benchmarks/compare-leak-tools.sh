#!/usr/bin/env bash
# Side-by-side comparison of leak detectors on the programs in Benchmarks/LeakCorpus/:
#   - leak-detector run (with allocation stacks, and with --no-stacks),
#   - LeakSanitizer (swiftc -sanitize=address, ASAN_OPTIONS=detect_leaks=1),
#   - valgrind --leak-check=full (memcheck),
# against the plain program. Every corpus file says in its header which Swift types it leaks and
# how many (`// EXPECT-LEAKED: Type=N ...` or `none`) and which fields/closures make the cycle
# (`// EXPECT-FIELDS: label ...`; `closure` means a closure should be named). `// ALLOCATED-BY: T=U`
# says that T's instances show up in allocation stacks as `U.__allocating_init` (a Foundation
# convenience init running its superclass's), for counting LeakSanitizer's and valgrind's blocks.
#
# Usage (from anywhere):
#   Benchmarks/compare-leak-tools.sh [OUTPUT.md]
# Prints a Markdown report to standard output and, when OUTPUT.md is given, writes it there too.
#
# Environment:
#   LEAK_DETECTOR   path of a leak-detector binary with libLeakDetectorAgent.so next to it.
#                   Default: build both with `swift build -c $CONFIGURATION` in the package.
#   CONFIGURATION   release (default) or debug, when building leak-detector.
#   REPS            timed repetitions of the plain run and the leak-detector runs (default 5;
#                   one untimed warm-up run comes first and is the one whose report is analysed)
#   LSAN_REPS       timed repetitions under LeakSanitizer (default 3)
#   VALGRIND        valgrind binary (default: valgrind on PATH; SKIP_VALGRIND=1 skips it)
#   SWIFTC_FLAGS    compiler flags for the corpus (default: -g -Onone)
#   PROGRAMS        space-separated corpus names to run (default: all, e.g. "closure-self clean-dispatch")
#   WORK_DIR        where binaries, logs and snapshots go (default: a new directory under /tmp; kept)
#   JOBS            parallel compiler jobs (default: number of cores)
#
# Time on a 2-core VM with a prebuilt leak-detector: ~15 s compiling the corpus twice, ~45-80 s running it
# (valgrind a third to a half of it). Results and discussion: Documentation/ComparedWithLeakSanitizer.md.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
output="${1:-}"

for tool in swiftc python3; do
  command -v "$tool" >/dev/null || { echo "compare-leak-tools: $tool is not on PATH" >&2; exit 1; }
done

if [ -z "${LEAK_DETECTOR:-}" ]; then
  configuration="${CONFIGURATION:-release}"
  echo "compare-leak-tools: building leak-detector, LeakDetectorAgent and LeakDetectorPreload ($configuration)" >&2
  # `swift build` builds only the last --product it is given, so one build per product.
  (cd "$root" && swift build -c "$configuration" --product leak-detector >&2 \
    && swift build -c "$configuration" --product LeakDetectorAgent >&2 \
    && swift build -c "$configuration" --product LeakDetectorPreload >&2)
  LEAK_DETECTOR="$(cd "$root" && swift build -c "$configuration" --show-bin-path)/leak-detector"
fi
[ -x "$LEAK_DETECTOR" ] || { echo "compare-leak-tools: no leak-detector at $LEAK_DETECTOR" >&2; exit 1; }
[ -f "$(dirname "$LEAK_DETECTOR")/libLeakDetectorAgent.so" ] \
  || { echo "compare-leak-tools: no libLeakDetectorAgent.so next to $LEAK_DETECTOR" >&2; exit 1; }

export LEAK_DETECTOR
export CORPUS="$root/Benchmarks/LeakCorpus"
export WORK_DIR="${WORK_DIR:-$(mktemp -d /tmp/compare-leak-tools.XXXXXX)}"
export OUTPUT="$output"
mkdir -p "$WORK_DIR"
echo "compare-leak-tools: work directory $WORK_DIR" >&2

exec python3 - <<'PY'
import concurrent.futures
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict

LEAK_DETECTOR = os.environ["LEAK_DETECTOR"]
CORPUS = os.environ["CORPUS"]
WORK = os.environ["WORK_DIR"]
OUTPUT = os.environ.get("OUTPUT", "")
REPS = int(os.environ.get("REPS", "5"))
LSAN_REPS = int(os.environ.get("LSAN_REPS", "3"))
SWIFTC_FLAGS = os.environ.get("SWIFTC_FLAGS", "-g -Onone").split()
JOBS = int(os.environ.get("JOBS", str(os.cpu_count() or 2)))
VALGRIND = None if os.environ.get("SKIP_VALGRIND") else (os.environ.get("VALGRIND") or shutil.which("valgrind"))
SELECTED = os.environ.get("PROGRAMS", "").split()
RUN_TIMEOUT = 60
SWIFT_DEMANGLE = shutil.which("swift-demangle")


def log(message):
    print(f"compare-leak-tools: {message}", file=sys.stderr, flush=True)


def sh(args, **kwargs):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace", **kwargs)


def demangle_text(text):
    """The text with every Swift symbol demangled (simplified), or the text as it is."""
    if SWIFT_DEMANGLE is None:
        return text
    result = subprocess.run([SWIFT_DEMANGLE, "--simplified"], input=text, stdout=subprocess.PIPE, text=True, errors="replace")
    return result.stdout if result.returncode == 0 else text


def demangle_names(names):
    names = list(names)
    if not names or SWIFT_DEMANGLE is None:
        return {name: name for name in names}
    result = subprocess.run([SWIFT_DEMANGLE, "--simplified", "--compact"], input="\n".join(names) + "\n",
                            stdout=subprocess.PIPE, text=True, errors="replace")
    lines = result.stdout.split("\n")
    return {name: (lines[i] if i < len(lines) and lines[i] else name) for i, name in enumerate(names)}


# ----------------------------------------------------------------------------------------------
# The corpus


class Program:
    def __init__(self, path):
        self.path = path
        self.file = os.path.basename(path)
        self.name = self.file[:-len(".swift")]
        self.module = re.sub(r"[^A-Za-z0-9_]", "_", self.name)
        text = open(path).read()
        leaked = re.search(r"^// EXPECT-LEAKED:(.*)$", text, re.M)
        fields = re.search(r"^// EXPECT-FIELDS:(.*)$", text, re.M)
        if leaked is None:
            raise SystemExit(f"{path}: no `// EXPECT-LEAKED:` line")
        self.expected = {}
        if leaked.group(1).strip() != "none":
            for item in leaked.group(1).split():
                type_name, count = item.rsplit("=", 1)
                self.expected[type_name] = int(count)
        self.fields = fields.group(1).split() if fields else []
        # `// ALLOCATED-BY: T=U`: T's instances are allocated by U's allocating init (a convenience
        # init of a Foundation subclass runs its superclass's), which is all an allocation frame shows.
        allocated_by = re.search(r"^// ALLOCATED-BY:(.*)$", text, re.M)
        self.allocators = dict(item.split("=", 1) for item in allocated_by.group(1).split()) if allocated_by else {}
        self.leaky = bool(self.expected)
        self.expected_total = sum(self.expected.values())
        self.plain = os.path.join(WORK, "bin", "plain", self.name)
        self.asan = os.path.join(WORK, "bin", "asan", self.name)
        self.valgrind_binary = self.plain
        self.build_errors = {}


def base_name(type_name):
    """`Box<Holder>` -> `Box`: what an allocating-init frame names."""
    return type_name.split("<", 1)[0]


def blocks_of(by_type, program, type_name):
    """Blocks of `type_name` in a LeakSanitizer/valgrind report, by the allocating frame."""
    return by_type.get(base_name(type_name), 0) or by_type.get(program.allocators.get(type_name, ""), 0)


KNOWN_MODULES = ["Swift", "_Concurrency", "Foundation", "FoundationEssentials", "Dispatch", "Synchronization"]


def normalized(text, module):
    """Text with the module qualifiers of the program's module and the toolchain's modules removed,
    and no spaces inside generic arguments: `mod.Box<mod.Holder>` -> `Box<Holder>`,
    `mod.Pair<Swift.String, mod.Tag>` -> `Pair<String,Tag>` (field labels after a type stay)."""
    modules = "|".join(re.escape(m) for m in [module, *KNOWN_MODULES])
    text = re.sub(r"(?<![A-Za-z0-9_.])(?:" + modules + r")\.(?=[A-Za-z_])", "", text)
    return re.sub(r",\s+", ",", text)


programs = [Program(os.path.join(CORPUS, f)) for f in sorted(os.listdir(CORPUS)) if f.endswith(".swift")]
if SELECTED:
    programs = [p for p in programs if p.name in SELECTED]
# Leaky programs first, then clean ones.
programs.sort(key=lambda p: (not p.leaky, p.name))
if not programs:
    raise SystemExit("compare-leak-tools: no corpus programs selected")

# ----------------------------------------------------------------------------------------------
# Toolchain facts


def first_line(args):
    try:
        result = sh(args)
        return (result.stdout or result.stderr).strip().splitlines()[0]
    except (OSError, IndexError):
        return "unavailable"


swift_version = first_line(["swiftc", "--version"])
valgrind_version = first_line([VALGRIND, "--version"]) if VALGRIND else "not run"
ld_version = first_line([LEAK_DETECTOR, "--version"])
cpu = "unknown CPU"
try:
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
except OSError:
    pass
machine = f"{os.cpu_count()} cores ({cpu}), {platform.system()} {platform.release()}"

# ----------------------------------------------------------------------------------------------
# Building: plain (-g -Onone) and AddressSanitizer (for LeakSanitizer), in parallel.

for sub in ("bin/plain", "bin/asan", "bin/dwarf4", "logs", "reports"):
    os.makedirs(os.path.join(WORK, sub), exist_ok=True)


def compile_one(program, variant):
    out = {"plain": program.plain, "asan": program.asan,
           "dwarf4": os.path.join(WORK, "bin", "dwarf4", program.name)}[variant]
    extra = {"plain": [], "asan": ["-sanitize=address"], "dwarf4": ["-debug-info-format=dwarf", "-dwarf-version=4"]}[variant]
    args = ["swiftc", *SWIFTC_FLAGS, *extra, "-module-name", program.module, program.path, "-o", out]
    result = sh(args)
    with open(os.path.join(WORK, "logs", f"{program.name}.build-{variant}.log"), "w") as f:
        f.write(" ".join(args) + "\n" + result.stdout + result.stderr)
    if result.returncode != 0:
        errors = [l for l in result.stderr.splitlines() if "error" in l][:3]
        program.build_errors[variant] = "; ".join(errors) or f"swiftc exited with {result.returncode}"
    return result.returncode == 0


log(f"compiling {len(programs)} programs twice (plain, -sanitize=address) with {JOBS} jobs")
started = time.monotonic()
with concurrent.futures.ThreadPoolExecutor(max_workers=JOBS) as pool:
    list(pool.map(lambda pv: compile_one(*pv), [(p, v) for p in programs for v in ("plain", "asan")]))
compile_seconds = time.monotonic() - started
asan_works = any("asan" not in p.build_errors for p in programs)


def dwarf_version(binary):
    result = sh(["readelf", "--debug-dump=info", binary]) if shutil.which("readelf") else None
    if result is None:
        return None
    match = re.search(r"^\s*Version:\s*(\d+)", result.stdout, re.M)
    return int(match.group(1)) if match else None


def valgrind_reads_dwarf5():
    match = re.search(r"(\d+)\.(\d+)", valgrind_version)
    return bool(match) and (int(match.group(1)), int(match.group(2))) >= (3, 18)


dwarf = dwarf_version(programs[0].plain) if os.path.exists(programs[0].plain) else None
valgrind_note = ""
if VALGRIND and dwarf is not None and dwarf >= 5 and not valgrind_reads_dwarf5():
    # Old valgrind cannot read DWARF 5: give it DWARF 4 builds of the same programs.
    log("valgrind predates DWARF 5 support: building DWARF 4 copies for it")
    with concurrent.futures.ThreadPoolExecutor(max_workers=JOBS) as pool:
        oks = list(pool.map(lambda p: compile_one(p, "dwarf4"), programs))
    for program, ok in zip(programs, oks):
        if ok:
            program.valgrind_binary = os.path.join(WORK, "bin", "dwarf4", program.name)
    valgrind_note = f"swiftc emits DWARF {dwarf}, which {valgrind_version} cannot read: valgrind ran DWARF 4 builds (-debug-info-format=dwarf -dwarf-version=4)."
elif VALGRIND:
    valgrind_note = f"swiftc emits DWARF {dwarf} here; {valgrind_version} reads it (line numbers in its frames show it)."

# ----------------------------------------------------------------------------------------------
# Running


def timed(args, env=None, timeout=RUN_TIMEOUT):
    started = time.perf_counter()
    try:
        result = subprocess.run(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=env, timeout=timeout, text=True, errors="replace")
        return time.perf_counter() - started, result.returncode, result.stdout, result.stderr
    except subprocess.TimeoutExpired as timeout_error:
        out = timeout_error.stdout or ""
        err = timeout_error.stderr or ""
        if isinstance(out, bytes): out = out.decode(errors="replace")
        if isinstance(err, bytes): err = err.decode(errors="replace")
        return time.perf_counter() - started, "timeout", out, err


def median(values):
    return statistics.median(values) if values else None


# --- leak-detector ------------------------------------------------------------------------------


def parse_ld_report(text, program):
    """What a leak-detector text report says."""
    result = {"text": text}
    checked = re.search(r"^Checked .*: ([\d,]+) objects? when it exited, ([\d,]+) leaked", text, re.M)
    result["objects_at_exit"] = int(checked.group(1).replace(",", "")) if checked else None
    result["leaked_all"] = int(checked.group(2).replace(",", "")) if checked else None
    leaks = re.search(r"^Leaks: ([\d,]+) objects? in ([\d,]+) groups?", text, re.M)
    result["reported"] = int(leaks.group(1).replace(",", "")) if leaks else 0
    result["groups"] = int(leaks.group(2).replace(",", "")) if leaks else 0
    section = text.split("\nLeaks:", 1)[1].split("\nSuppressed:", 1)[0] if "\nLeaks:" in text else ""
    result["section"] = section.strip()
    plain_section = normalized(section, program.module)
    result["types_named"] = [t for t in program.expected
                             if re.search(r"(?<![A-Za-z0-9_])" + re.escape(normalized(t, program.module)) + r"(?![A-Za-z0-9_<])", plain_section)]
    named_fields = []
    for label in program.fields:
        if label == "closure":
            if "closure #" in section:
                named_fields.append(label)
        elif re.search(r"\." + re.escape(label) + r"(?![A-Za-z0-9_])", section):
            named_fields.append(label)
    result["fields_named"] = named_fields
    result["file_lines"] = sorted(set(re.findall(re.escape(program.file) + r":\d+", section)))
    return result


def ld_snapshot_counts(path, module):
    """Per-type counts of the objects leak-detector's snapshot makes unreachable, with facts for
    explaining a miss. An exit snapshot of `leak-detector run` has complete roots (the agent scanned
    the globals, thread stacks, TLS and reference counts), so reachability is computed from the
    roots it lists even when there are none: a snapshot with no roots has leaked everything."""
    try:
        snapshot = json.load(open(path))
    except (OSError, ValueError):
        return None
    objects = {o["id"]: o for o in snapshot.get("objects", [])}
    strong = defaultdict(list)
    for reference in snapshot.get("references", []):
        if reference.get("ownership", "strong") == "strong":
            strong[reference["from"]].append(reference["to"])
    roots = snapshot.get("roots", [])
    seen = set()
    stack = [r["object"] for r in roots if r["object"] in objects]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        stack.extend(strong.get(node, []))
    leaked = [o for i, o in objects.items() if i not in seen]
    root_kinds = defaultdict(Counter)
    for r in roots:
        if r["object"] in objects:
            root_kinds[normalized(objects[r["object"]]["type"], module)][r["kind"]] += 1
    return {
        "roots": len(roots),
        # Closure values (a closure whose context is the one object it captures) have no address
        # and are not objects: the tool's counts leave them out too.
        "unreachable": sum(1 for o in leaked if "address" in o),
        "present": Counter(normalized(o["type"], module) for o in objects.values()),
        "leaked": Counter(normalized(o["type"], module) for o in leaked),
        "root_kinds": root_kinds,
        "diagnostics": (snapshot.get("metadata") or {}).get("diagnostics") or [],
    }


# --- LeakSanitizer ------------------------------------------------------------------------------

LSAN_RECORD = re.compile(r"^(Direct|Indirect) leak of (\d+) byte\(s\) in (\d+) object\(s\) allocated from:\n((?:\s+#\d+ .*\n?)*)", re.M)
RUNTIME_FRAMES = ("malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc", "operator new",
                  "swift_slowAlloc", "swift_allocObject", "swift_allocBox", "swift_task_alloc")


def allocation_type(functions):
    """The class an allocation record's stack allocates: the frame right after swift_allocObject,
    when it is `T.__allocating_init` (class instances); else a description of the block."""
    for index, function in enumerate(functions):
        if function.startswith("swift_allocObject"):
            caller = functions[index + 1] if index + 1 < len(functions) else ""
            match = re.match(r"(?:static )?([A-Za-z_][\w.<>, ]*?)\.__allocating_init", caller)
            if match:
                return match.group(1).split(".")[-1].split("<")[0]
            return f"object allocated in {caller.split('(')[0] or '?'}"
    return None


def lsan_frames(block):
    frames = []
    for line in block.splitlines():
        match = re.match(r"\s+#\d+ 0x[0-9a-f]+ in (.*?)(?: (/\S+?)(?::(\d+))?(?::\d+)?| \((\S+)\+0x[0-9a-f]+\))?(?: \(BuildId: \w+\))?\s*$", line)
        if match:
            frames.append({"fn": match.group(1), "file": match.group(2) or match.group(4) or "", "line": match.group(3)})
    return frames


def parse_lsan(stderr, program):
    text = demangle_text(stderr)
    records = []
    for match in LSAN_RECORD.finditer(text):
        frames = lsan_frames(match.group(4))
        records.append({"kind": match.group(1), "bytes": int(match.group(2)), "blocks": int(match.group(3)), "frames": frames,
                        "type": allocation_type([f["fn"] for f in frames])})
    return summarize_blocks(records, program, text)


def summarize_blocks(records, program, text):
    by_type = Counter()
    for record in records:
        if record["type"] and not record["type"].startswith("object allocated in"):
            by_type[record["type"]] += record["blocks"]
    in_program = [r for r in records if any(os.path.basename(f["file"]) == program.file for f in r["frames"])]
    functions = " ".join(f["fn"] for r in records for f in r["frames"])
    fields = []
    for label in program.fields:
        if label == "closure":
            if any(r["type"] and "closure #" in r["type"] for r in records):
                fields.append(label)
        elif re.search(r"\." + re.escape(label) + r"\b", functions):
            fields.append(label)
    file_lines = sorted({f"{program.file}:{f['line']}" for r in records for f in r["frames"]
                         if os.path.basename(f["file"]) == program.file and f["line"] and f["line"] != "0"})
    return {
        "text": text,
        "records": records,
        "blocks": sum(r["blocks"] for r in records),
        "direct": sum(r["blocks"] for r in records if r["kind"] in ("Direct", "Leak_DefinitelyLost")),
        "indirect": sum(r["blocks"] for r in records if r["kind"] in ("Indirect", "Leak_IndirectlyLost")),
        "program_blocks": sum(r["blocks"] for r in in_program),
        "by_type": by_type,
        "types_named": [t for t in program.expected if by_type.get(base_name(t))],
        "fields_named": fields,
        "file_lines": file_lines,
    }


# --- valgrind -----------------------------------------------------------------------------------


def parse_valgrind(xml_path, stderr, program):
    crashed = "VALGRIND INTERNAL ERROR" in stderr or "the 'impossible' happened" in stderr
    try:
        tree = ET.parse(xml_path)
    except (OSError, ET.ParseError):
        result = summarize_blocks([], program, "")
        result.update(ok=False, crashed=crashed, possibly=0)
        return result
    raw = []
    for error in tree.getroot().iter("error"):
        kind = error.findtext("kind") or ""
        if not kind.startswith("Leak_"):
            continue
        blocks = int(error.findtext("xwhat/leakedblocks") or 0)
        frames = [{"fn": f.findtext("fn") or "", "file": f.findtext("file") or "", "line": f.findtext("line")}
                  for f in error.iterfind("stack/frame")]
        raw.append((kind, blocks, frames))
    names = demangle_names({f["fn"] for _, _, frames in raw for f in frames if f["fn"]})
    records, possibly = [], 0
    for kind, blocks, frames in raw:
        for f in frames:
            f["fn"] = names.get(f["fn"], f["fn"])
        if kind == "Leak_PossiblyLost":
            possibly += blocks
            continue
        if kind not in ("Leak_DefinitelyLost", "Leak_IndirectlyLost"):
            continue
        records.append({"kind": kind, "blocks": blocks, "frames": frames, "type": allocation_type([f["fn"] for f in frames])})
    result = summarize_blocks(records, program, "")
    result.update(ok=not crashed, crashed=crashed, possibly=possibly)
    return result


# --- one program --------------------------------------------------------------------------------


def run_program(program):
    log(f"running {program.name}")
    results = {"plain": {}, "ld": {}, "ld-nostacks": {}, "lsan": {}, "valgrind": {}}
    if "plain" in program.build_errors:
        for tool in results:
            results[tool] = {"error": "build failed: " + program.build_errors["plain"]}
        return results
    reports = os.path.join(WORK, "reports", program.name)
    os.makedirs(reports, exist_ok=True)
    lsan_env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1")
    symbolizer = shutil.which("llvm-symbolizer")
    if symbolizer:
        lsan_env["ASAN_SYMBOLIZER_PATH"] = symbolizer

    times = defaultdict(list)
    runs = defaultdict(list)
    for repetition in range(max(REPS, LSAN_REPS) + 1):
        warmup = repetition == 0
        if warmup or repetition <= REPS:
            seconds, code, out, err = timed([program.plain])
            runs["plain"].append({"code": code, "stdout": out, "stderr": err})
            if not warmup: times["plain"].append(seconds)
            for tool, flags in (("ld", []), ("ld-nostacks", ["--no-stacks"])):
                report = os.path.join(reports, f"{tool}-{repetition}.txt")
                args = [LEAK_DETECTOR, "run", *flags, "--output", report]
                if warmup:
                    args += ["--snapshot", os.path.join(reports, f"{tool}.snapshot.json")]
                seconds, code, out, err = timed(args + ["--", program.plain])
                text = open(report).read() if os.path.exists(report) else ""
                runs[tool].append({"code": code, "stdout": out, "stderr": err, "report": text})
                if not warmup: times[tool].append(seconds)
        if (warmup or repetition <= LSAN_REPS) and "asan" not in program.build_errors:
            seconds, code, out, err = timed([program.asan], env=lsan_env)
            runs["lsan"].append({"code": code, "stdout": out, "stderr": err})
            with open(os.path.join(reports, f"lsan-{repetition}.txt"), "w") as f:
                f.write(err)
            if not warmup: times["lsan"].append(seconds)

    plain_median = median(times["plain"])
    first = runs["plain"][0]
    results["plain"] = {"time": plain_median, "code": first["code"], "stdout": first["stdout"].strip()}

    for tool in ("ld", "ld-nostacks"):
        parsed = [parse_ld_report(r["report"], program) for r in runs[tool]]
        main = parsed[0]
        main["codes"] = sorted({str(r["code"]) for r in runs[tool]})
        main["reported_range"] = (min(p["reported"] for p in parsed), max(p["reported"] for p in parsed))
        main["stderr"] = runs[tool][0]["stderr"].strip()
        main["snapshot"] = ld_snapshot_counts(os.path.join(reports, f"{tool}.snapshot.json"), program.module)
        main["expected_found"] = sum(min(main["snapshot"]["leaked"].get(normalized(t, program.module), 0), n)
                                     for t, n in program.expected.items()) if main["snapshot"] else 0
        # The per-type counts come from the snapshot; the tool cannot have found more than it reported
        # (a tool that disagrees with the snapshot's reachability is listed as a COUNT MISMATCH below).
        main["expected_found"] = min(main["expected_found"], main["reported"])
        main["time"] = median(times[tool])
        # The groups of every run (fingerprints and instance counts): the same program should give the same.
        main["group_sets"] = Counter(
            tuple(sorted(re.findall(r"^\s+\d+\) (\d+) × .*?\n(?:.*\n)*?\s+fingerprint (\w+)", p["section"] + "\n", re.M)))
            for p in parsed)
        main["fingerprint_summaries"] = dict(
            (fp, summary) for p in parsed
            for summary, fp in re.findall(r"^\s+\d+\) \d+ × (.*?)  \(.*?\n(?:.*\n)*?\s+fingerprint (\w+)", p["section"] + "\n", re.M))
        results[tool] = main

    if "asan" in program.build_errors:
        results["lsan"] = {"error": "-sanitize=address build failed: " + program.build_errors["asan"]}
    else:
        parsed = [parse_lsan(r["stderr"], program) for r in runs["lsan"]]
        main = parsed[0]
        main["codes"] = sorted({str(r["code"]) for r in runs["lsan"]})
        main["blocks_range"] = (min(p["blocks"] for p in parsed), max(p["blocks"] for p in parsed))
        found = [sum(min(blocks_of(p["by_type"], program, t), n) for t, n in program.expected.items()) for p in parsed]
        main["expected_found"] = found[0]
        main["expected_found_range"] = (min(found), max(found))
        main["time"] = median(times["lsan"])
        results["lsan"] = main

    if VALGRIND:
        xml_path = os.path.join(reports, "valgrind.xml")
        args = [VALGRIND, "--leak-check=full", "--show-leak-kinds=definite,indirect,possible",
                "--xml=yes", f"--xml-file={xml_path}", program.valgrind_binary]
        seconds, code, out, err = timed(args, timeout=120)
        with open(os.path.join(reports, "valgrind.stderr.txt"), "w") as f:
            f.write(err)
        main = parse_valgrind(xml_path, err, program)
        main["code"] = code
        main["time"] = seconds
        main["expected_found"] = sum(min(blocks_of(main["by_type"], program, t), n) for t, n in program.expected.items())
        results["valgrind"] = main
    return results


started = time.monotonic()
all_results = {}
for program in programs:
    all_results[program.name] = run_program(program)
run_seconds = time.monotonic() - started

# ----------------------------------------------------------------------------------------------
# Tabulating

TOOLS = [("ld", "leak-detector"), ("ld-nostacks", "leak-detector --no-stacks"),
         ("lsan", "LeakSanitizer (ASan build)"), ("valgrind", "valgrind memcheck")]


def fmt_ratio(tool_time, plain_time):
    if tool_time is None or not plain_time:
        return "–"
    return f"{tool_time / plain_time:.1f}×"


def fmt_ms(seconds):
    return "–" if seconds is None else f"{seconds * 1000:.0f} ms"


def expected_text(program):
    return ", ".join(f"{t}×{n}" for t, n in program.expected.items()) if program.leaky else "none (clean)"


def yes_no(flag):
    return "yes" if flag else "no"


def cell_range(low_high, value):
    low, high = low_high
    return f"{value}" if low == high else f"{low}–{high}"


def row_for(program, tool, res, plain_time):
    """found, expected objects found, reported, types, fields, file:line, false positive, time, ratio."""
    if "error" in res:
        return [res["error"], "–", "–", "–", "–", "–", "–", "–", "–"]
    n_types, n_fields = len(program.expected), len(program.fields)
    if tool in ("ld", "ld-nostacks") and res["objects_at_exit"] is None:
        problem = (res["stderr"].splitlines() or res["text"].splitlines() or ["no report"])[0]
        return [f"run failed (exit {', '.join(res['codes'])}): {problem}", "–", "–", "–", "–", "–", "–",
                fmt_ms(res.get("time")), fmt_ratio(res.get("time"), plain_time)]
    if tool in ("ld", "ld-nostacks"):
        found_expected = res["expected_found"]
        any_reported = res["reported"] > 0
        reported = f"{cell_range(res['reported_range'], res['reported'])} objects in {res['groups']} group(s)"
        if res["leaked_all"] is not None and res["leaked_all"] != res["reported"]:
            reported += f" ({res['leaked_all']} before suppressions)"
        if res["snapshot"] and res["snapshot"]["roots"] == 0 and res["objects_at_exit"]:
            reported += "; snapshot has 0 roots"
        found_expected_text = f"{found_expected}/{program.expected_total}"
    elif tool == "lsan":
        found_expected = res["expected_found"]
        any_reported = res["blocks"] > 0
        first = "" if res["blocks_range"][0] == res["blocks_range"][1] else "first run: "
        reported = f"{cell_range(res['blocks_range'], res['blocks'])} blocks ({first}{res['direct']} direct, {res['indirect']} indirect)"
        low, high = res["expected_found_range"]
        found_expected_text = (f"{low}–{high}" if low != high else f"{found_expected}") + f"/{program.expected_total}"
    else:
        if res.get("crashed") or not res.get("ok", True):
            return ["valgrind crashed" if res.get("crashed") else "no XML output", "–", "–", "–", "–", "–", "–",
                    fmt_ms(res.get("time")), fmt_ratio(res.get("time"), plain_time)]
        found_expected = res["expected_found"]
        any_reported = res["blocks"] > 0
        reported = f"{res['blocks']} blocks ({res['direct']} definite, {res['indirect']} indirect; {res['possibly']} possibly lost)"
        found_expected_text = f"{found_expected}/{program.expected_total}"
    if program.leaky:
        found = "yes" if found_expected >= program.expected_total else ("partly" if found_expected > 0 else ("other blocks only" if any_reported else "**no**"))
        types = f"{len(res['types_named'])}/{n_types}"
        fields = f"{len(res['fields_named'])}/{n_fields}" if n_fields else "n/a"
        false_positive = "–"
    else:
        found = "none reported" if not any_reported else "reported"
        found_expected_text = "–"
        types = fields = "–"
        false_positive = "**yes**" if any_reported else "no"
    file_lines = ", ".join(res["file_lines"][:3]) + (" …" if len(res["file_lines"]) > 3 else "") if res["file_lines"] else "no"
    return [found, found_expected_text, reported, types, fields, file_lines, false_positive,
            fmt_ms(res.get("time")), fmt_ratio(res.get("time"), plain_time)]


lines = []
emit = lines.append
emit("# Leak detectors side by side on Benchmarks/LeakCorpus")
emit("")
emit(f"- machine: {machine}")
emit(f"- toolchain: {swift_version}; corpus built with `swiftc {' '.join(SWIFTC_FLAGS)}` "
     f"(LeakSanitizer: the same plus `-sanitize=address`, run with `ASAN_OPTIONS=detect_leaks=1`)")
emit(f"- leak-detector {ld_version} at `{LEAK_DETECTOR}`; {valgrind_version}")
emit(f"- swiftc `-sanitize=address`: {'works' if asan_works else 'FAILED'}; `-sanitize=leak` is not accepted by swiftc, so LeakSanitizer runs inside ASan builds")
if valgrind_note:
    emit(f"- valgrind and DWARF: {valgrind_note}")
emit(f"- repetitions: plain and leak-detector {REPS} timed (+1 warm-up, whose report is the one analysed), "
     f"LeakSanitizer {LSAN_REPS} timed (+1 warm-up), valgrind 1; times are medians; ratio = tool / plain, same run")
emit(f"- compile {compile_seconds:.0f} s, runs {run_seconds:.0f} s")
emit("")
emit("Columns: *found* = the expected leaked instances were reported (yes / partly / no); *expected objects* = "
     "reported leaked instances of the expected types (leak-detector: from its exit snapshot; LeakSanitizer/valgrind: "
     "blocks whose allocating frame is the type's `__allocating_init`), a range when repetitions differ; *reported* = "
     "everything the tool reported; *types* / *fields* = how many of the expected types / field labels (and `closure`) "
     "the report names; *file:line* = locations in the program's source the report gives; *FP* = anything reported for "
     "a clean program.")
emit("")
emit("| program | expected leak | tool | found | expected objects | reported | types | fields | file:line | FP | time | × plain |")
emit("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for program in programs:
    res = all_results[program.name]
    plain_time = res["plain"].get("time")
    status = res["plain"].get("code")
    plain_note = f"plain: {fmt_ms(plain_time)}" + ("" if status == 0 else f", exit {status}")
    emit(f"| **{program.name}** | {expected_text(program)} | plain run | exit {status} | | | | | | | {fmt_ms(plain_time)} | 1.0× |")
    for tool, label in TOOLS:
        if tool == "valgrind" and not VALGRIND:
            continue
        cells = row_for(program, tool, res[tool], plain_time)
        emit(f"| {program.name} | | {label} | " + " | ".join(cells) + " |")
emit("")

# Summary per tool.
emit("## Summary per tool")
emit("")
emit("| tool | leaky programs fully found | partly | missed | expected objects found | names types | names fields | file:line | clean programs with false positives | median × plain | median added time |")
emit("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
leaky = [p for p in programs if p.leaky]
clean = [p for p in programs if not p.leaky]
for tool, label in TOOLS:
    if tool == "valgrind" and not VALGRIND:
        continue
    full = part = missed = objects = types = fields = with_lines = fps = 0
    ratios, added = [], []
    for program in programs:
        res = all_results[program.name][tool]
        plain_time = all_results[program.name]["plain"].get("time")
        if res.get("time") is not None and plain_time is not None:
            added.append(res["time"] - plain_time)
        if "error" in res or (tool == "valgrind" and (res.get("crashed") or not res.get("ok", True))):
            if program.leaky:
                missed += 1
            if res.get("time") and plain_time:
                ratios.append(res["time"] / plain_time)
            continue
        if res.get("time") and plain_time:
            ratios.append(res["time"] / plain_time)
        if program.leaky:
            found = res["expected_found"]
            full += found >= program.expected_total
            part += 0 < found < program.expected_total
            missed += found == 0
            objects += found
            types += len(res["types_named"])
            fields += len(res["fields_named"])
            with_lines += bool(res["file_lines"])
        else:
            reported = res["reported"] if tool.startswith("ld") else res["blocks"]
            fps += reported > 0
    total_objects = sum(p.expected_total for p in leaky)
    total_types = sum(len(p.expected) for p in leaky)
    total_fields = sum(len(p.fields) for p in leaky)
    emit(f"| {label} | {full}/{len(leaky)} | {part} | {missed} | {objects}/{total_objects} | {types}/{total_types} | "
         f"{fields}/{total_fields} | {with_lines}/{len(leaky)} | {fps}/{len(clean)} | "
         f"{(statistics.median(ratios) if ratios else 0):.1f}× | {fmt_ms(statistics.median(added) if added else None)} |")
emit("")

# Discrepancies of leak-detector.
emit("## leak-detector discrepancies")
emit("")
found_any = False


def lsan_evidence(lsan, program):
    """The LeakSanitizer lines that show the expected types leaking (record header and allocating frame)."""
    out = []
    for record in lsan["records"]:
        if record["type"] and any(record["type"] in (base_name(t), program.allocators.get(t)) for t in program.expected):
            frame = next((f for f in record["frames"] if f["fn"].split("(")[0].endswith("__allocating_init")), None)
            where = f" — `{frame['fn']}` ({os.path.basename(frame['file'])})" if frame else ""
            out.append(f"`{record['kind']} leak of {record['bytes']} byte(s) in {record['blocks']} object(s)`{where}")
    return out[:4]


for program in programs:
    res = all_results[program.name]
    lsan = res["lsan"] if "error" not in res["lsan"] else None
    outcomes = {}
    for tool in ("ld", "ld-nostacks"):
        ld = res[tool]
        if "error" in ld:
            continue
        if program.leaky and ld["expected_found"] < program.expected_total:
            outcomes[tool] = ("miss", ld["expected_found"])
        elif not program.leaky and ld["reported"] > 0:
            outcomes[tool] = ("fp", ld["reported"])
    if not outcomes:
        if program.leaky and "error" not in res["ld"]:
            missing_types = [t for t in program.expected if t not in res["ld"]["types_named"]]
            if missing_types:
                emit(f"- note `{program.file}`: every expected object is leaked in leak-detector's analysis, but its report "
                     f"text does not name {', '.join(missing_types)} (a group lists only its entry cycle's members).")
        continue
    found_any = True
    if len(outcomes) == 2 and outcomes["ld"] == outcomes["ld-nostacks"]:
        modes, label = ["ld"], "leak-detector, with and without --no-stacks"
    else:
        modes = list(outcomes)
        label = None
    for tool in modes:
        ld = res[tool]
        this_label = label or ("leak-detector" if tool == "ld" else "leak-detector --no-stacks")
        kind, number = outcomes[tool]
        if kind == "miss":
            lsan_part = "LeakSanitizer: not run"
            if lsan:
                low, high = lsan["expected_found_range"]
                per_type = ", ".join(f"{t}×{blocks_of(lsan['by_type'], program, t)}" for t in program.expected)
                lsan_part = (f"LeakSanitizer found {low}–{high}" if low != high else f"LeakSanitizer found {low}") + \
                    f"/{program.expected_total} over its runs (first run: {per_type})"
            emit(f"- **MISS** `{program.file}` ({this_label}): expected {expected_text(program)}; "
                 f"leak-detector found {number}/{program.expected_total}; {lsan_part}.")
            snapshot = ld["snapshot"]
            if snapshot:
                facts = []
                if snapshot["roots"] == 0:
                    facts.append("the exit snapshot has **no roots at all**, so every object in it is unreachable "
                                 f"({snapshot['unreachable']}), yet `run` reported {ld['leaked_all']} leaked")
                for t in program.expected:
                    key = normalized(t, program.module)
                    kinds = snapshot["root_kinds"].get(key)
                    fact = f"{t}: {snapshot['present'].get(key, 0)} in the snapshot, {snapshot['leaked'].get(key, 0)} unreachable"
                    if kinds:
                        fact += ", themselves roots: " + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
                    facts.append(fact)
                for diagnostic in snapshot["diagnostics"][:2]:
                    facts.append(f"diagnostic: \"{diagnostic}\"")
                emit("  - snapshot: " + "; ".join(facts))
            first_lines = [l for l in ld["text"].splitlines() if l.strip()][:4]
            emit("  - leak-detector printed: " + " / ".join(f"`{l.strip()}`" for l in first_lines))
            if lsan and lsan["records"]:
                evidence = lsan_evidence(lsan, program)
                if evidence:
                    emit("  - LeakSanitizer printed: " + "; ".join(evidence))
        else:
            emit(f"- **FALSE POSITIVE** `{program.file}` ({this_label}): clean program, reported: "
                 + " / ".join(f"`{l.strip()}`" for l in ld["section"].splitlines()[:4]))
# leak-detector's own count against the snapshot's reachability (same warm-up run): they must agree.
for program in programs:
    for tool in ("ld", "ld-nostacks"):
        ld = all_results[program.name][tool]
        if "error" in ld or ld["objects_at_exit"] is None or not ld["snapshot"]:
            continue
        snapshot = ld["snapshot"]
        if snapshot["unreachable"] != ld["leaked_all"]:
            found_any = True
            label = "leak-detector" if tool == "ld" else "leak-detector --no-stacks"
            emit(f"- **COUNT MISMATCH** `{program.file}` ({label}): the tool said {ld['leaked_all']} of "
                 f"{ld['objects_at_exit']} objects leaked, but its exit snapshot ({snapshot['roots']} roots) leaves "
                 f"{snapshot['unreachable']} of {sum(snapshot['present'].values())} unreachable.")
# leak-detector's exit status: 2 when it reports leaks, 0 when not (the corpus programs exit 0).
for program in programs:
    for tool in ("ld", "ld-nostacks"):
        ld = all_results[program.name][tool]
        if "error" in ld or ld["objects_at_exit"] is None:
            continue
        expected_code = "2" if ld["reported"] > 0 else "0"
        if ld["codes"] != [expected_code]:
            found_any = True
            label = "leak-detector" if tool == "ld" else "leak-detector --no-stacks"
            emit(f"- **EXIT STATUS** `{program.file}` ({label}): exited {', '.join(ld['codes'])} with "
                 f"{ld['reported']} leaked objects reported (expected {expected_code}).")

# Run-to-run stability of leak-detector's groups.
for program in programs:
    unstable = []
    for tool in ("ld", "ld-nostacks"):
        ld = all_results[program.name][tool]
        if "error" not in ld and len(ld["group_sets"]) > 1:
            unstable.append((tool, ld["group_sets"]))
    for tool, sets in unstable:
        found_any = True
        label = "leak-detector" if tool == "ld" else "leak-detector --no-stacks"
        variants = "; ".join(f"{n} run(s): " + ", ".join(f"{count}× {fp}" for count, fp in groups)
                             for groups, n in sets.most_common())
        emit(f"- **UNSTABLE GROUPS** `{program.file}` ({label}): the same program leaks the same structure every run, "
             f"but the runs split it into different groups/fingerprints — {variants}.")
        for fp, summary in sorted(all_results[program.name][tool]["fingerprint_summaries"].items()):
            emit(f"  - `{fp}`: `{summary}`")
if not found_any:
    emit("None: leak-detector found every expected leak and reported nothing on the clean programs.")
emit("")
emit(f"Reports, snapshots and logs: `{WORK}/reports/<program>/`.")

markdown = "\n".join(lines) + "\n"
sys.stdout.write(markdown)
if OUTPUT:
    with open(OUTPUT, "w") as f:
        f.write(markdown)
    log(f"wrote {OUTPUT}")
PY
