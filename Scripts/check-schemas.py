#!/usr/bin/env python3
"""Checks that the documented JSON schemas accept what the tool reads and writes, and reject
what it refuses: the example snapshots, the reports `leak-detector analyze --format json` writes
for them, known-bad snapshots, and the golden JSON run reports of `leak-detector run`. Run from
anywhere; needs a debug build of leak-detector."""
import glob
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
try:
    import jsonschema
except ImportError:
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "jsonschema"], check=True)
    import jsonschema


def load(path):
    with open(path) as f:
        return json.load(f)


snapshot_schema = load(os.path.join(ROOT, "Documentation/schemas/heap-snapshot-v1.schema.json"))
report_schema = load(os.path.join(ROOT, "Documentation/schemas/leak-report-v1.schema.json"))
jsonschema.Draft202012Validator.check_schema(snapshot_schema)
jsonschema.Draft202012Validator.check_schema(report_schema)
snapshots = jsonschema.Draft202012Validator(snapshot_schema)
reports = jsonschema.Draft202012Validator(report_schema)

binary = os.path.join(subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, check=True,
                                     capture_output=True, text=True).stdout.strip(), "leak-detector")
failures = 0
checked = 0
examples = sorted(glob.glob(os.path.join(ROOT, "Examples/Snapshots/*.json")))
examples += [os.path.join(ROOT, "Tests/LeakDetectorEndToEndTests/Fixtures", name)
             for name in ("fb-seven-nodes.json", "no-cycles.json")]
for path in examples:
    for error in snapshots.iter_errors(load(path)):
        print(f"{path}: snapshot schema: {error.message}")
        failures += 1
    result = subprocess.run([binary, "analyze", path, "--format", "json"], capture_output=True, text=True)
    if result.returncode not in (0, 2):
        print(f"{path}: leak-detector exited with {result.returncode}: {result.stderr}")
        failures += 1
        continue
    for error in reports.iter_errors(json.loads(result.stdout)):
        print(f"{path}: report schema: {error.message}")
        failures += 1
    checked += 1

bad = {
    "unknown ownership": {"format": "swift-heap-snapshot", "version": 1, "objects": [{"id": 1, "type": "A"}],
                          "references": [{"from": 1, "to": 1, "ownership": "sturdy"}]},
    "missing type": {"format": "swift-heap-snapshot", "version": 1, "objects": [{"id": 1}], "references": []},
    "version 2": {"format": "swift-heap-snapshot", "version": 2, "objects": [], "references": []},
}
for name, document in bad.items():
    if snapshots.is_valid(document):
        print(f"the snapshot schema accepts a bad snapshot ({name})")
        failures += 1

# Object kinds: the schema lists this version's kinds (the tool reads any other string as unknown).
kinds = {"format": "swift-heap-snapshot", "version": 1, "references": [],
         "objects": [{"id": 1, "type": "A", "kind": "class"}, {"id": 2, "type": "closure #1 in f()", "kind": "closure"},
                     {"id": 3, "type": "box<Int>", "kind": "box"}, {"id": 4, "type": "B", "kind": None}]}
for error in snapshots.iter_errors(kinds):
    print(f"object kinds: snapshot schema: {error.message}")
    failures += 1
if snapshots.is_valid({**kinds, "objects": [{"id": 1, "type": "A", "kind": "actor"}]}):
    print("the snapshot schema accepts an object kind it does not list")
    failures += 1

# Diagnostic records: the schema accepts what the tool writes, and the tool reads it.
records = {"format": "swift-heap-snapshot", "version": 1, "objects": [], "references": [],
           "metadata": {"diagnostics": ["a failed attempt; captured again", "A at 0x10: an unbalanced retain", "a sentence"],
                        "diagnosticRecords": [{"kind": "capture-failed", "count": 1},
                                              {"kind": "unbalanced-retain", "type": "A", "address": "0x10", "count": 1}, {}]}}
for error in snapshots.iter_errors(records):
    print(f"diagnostic records: snapshot schema: {error.message}")
    failures += 1
import tempfile
with tempfile.NamedTemporaryFile("w", suffix=".json") as document:
    json.dump(records, document)
    document.flush()
    result = subprocess.run([binary, "analyze", document.name], capture_output=True, text=True)
    if result.returncode not in (0, 2):
        print(f"diagnostic records: leak-detector exited with {result.returncode}: {result.stderr}")
        failures += 1

# Process memory: the schemas accept what the tool writes and reports, and refuse a negative size.
memory = {"format": "swift-heap-snapshot", "version": 1, "objects": [{"id": 1, "type": "A", "size": 24}], "references": [],
          "metadata": {"memory": {"swiftObjectCount": 1, "swiftObjectBytes": 24, "mallocInUse": 221056,
                                  "mallocFreeInArenas": 212091008, "mallocArenaBytes": 212312064, "mallocArenas": 1,
                                  "mallocMmapped": 0, "residentBytes": 228491264, "anonymousBytes": 213397504,
                                  "fileBackedBytes": 15093760, "virtualBytes": 4546605056}}}
for error in snapshots.iter_errors(memory):
    print(f"process memory: snapshot schema: {error.message}")
    failures += 1
if snapshots.is_valid({**memory, "metadata": {"memory": {"residentBytes": -1}}}):
    print("the snapshot schema accepts a negative memory size")
    failures += 1
with tempfile.NamedTemporaryFile("w", suffix=".json") as document:
    json.dump(memory, document)
    document.flush()
    result = subprocess.run([binary, "analyze", document.name, "--format", "json"], capture_output=True, text=True)
    if result.returncode not in (0, 2):
        print(f"process memory: leak-detector exited with {result.returncode}: {result.stderr}")
        failures += 1
    else:
        report = json.loads(result.stdout)
        if report.get("memory") != memory["metadata"]["memory"]:
            print(f"process memory: the report's memory is {report.get('memory')}")
            failures += 1
        for error in reports.iter_errors(report):
            print(f"process memory: report schema: {error.message}")
            failures += 1

# The captured process as fields: the schema accepts what the agent writes and refuses a process id
# that no process has.
process = {"format": "swift-heap-snapshot", "version": 1, "objects": [], "references": [],
           "metadata": {"process": "Server --port 8080 (pid 4242)", "processID": 4242,
                        "arguments": ["/srv/Server", "--port", "8080"], "captureMilliseconds": 412}}
for error in snapshots.iter_errors(process):
    print(f"process fields: snapshot schema: {error.message}")
    failures += 1
if snapshots.is_valid({**process, "metadata": {"processID": 0}}):
    print("the snapshot schema accepts process id 0")
    failures += 1

# The gate's SARIF against the official OASIS SARIF 2.1.0 schema (draft-04), shipped as test data.
sarif_schema_path = os.path.join(ROOT, "Tests/LeakDetectorEndToEndTests/Fixtures/sarif-schema-2.1.0.json")
sarif_checked = 0
if os.path.exists(sarif_schema_path):
    sarif_validator = jsonschema.Draft4Validator(load(sarif_schema_path))
    import tempfile
    with tempfile.TemporaryDirectory() as scratch:
        baseline = os.path.join(scratch, "baseline.json")
        with open(baseline, "w") as f:
            f.write('{"formatVersion": 1, "accepted": {}}')
        for path in examples:
            output = os.path.join(scratch, "out.sarif")
            result = subprocess.run([binary, "gate", path, "--baseline", baseline, "--format", "sarif", "--output", output],
                                    capture_output=True, text=True)
            if result.returncode not in (0, 2):
                print(f"{path}: leak-detector gate exited with {result.returncode}: {result.stderr}")
                failures += 1
                continue
            for error in sarif_validator.iter_errors(load(output)):
                print(f"{path}: SARIF 2.1.0 schema: {error.message} at {list(error.absolute_path)}")
                failures += 1
            sarif_checked += 1
            # JUnit XML must parse, with one test case per finding.
            junit = subprocess.run([binary, "gate", path, "--baseline", baseline, "--format", "junit"],
                                   capture_output=True, text=True).stdout
            import xml.etree.ElementTree as ElementTree
            try:
                suites = ElementTree.fromstring(junit)
                cases = suites.findall("./testsuite/testcase")
                if suites.get("tests") != str(len(cases)):
                    print(f"{path}: JUnit: tests={suites.get('tests')} but {len(cases)} test cases")
                    failures += 1
            except ElementTree.ParseError as error:
                print(f"{path}: JUnit XML does not parse: {error}")
                failures += 1

# The JSON growth report (`growth --format json`): its golden file, and a bad one refused.
growth_schema = load(os.path.join(ROOT, "Documentation/schemas/leak-growth-v1.schema.json"))
jsonschema.Draft202012Validator.check_schema(growth_schema)
growths = jsonschema.Draft202012Validator(growth_schema)
growth_golden = load(os.path.join(ROOT, "Tests/HeapGraphTests/__Snapshots__/growth-report.json"))
for error in growths.iter_errors(growth_golden):
    print(f"growth-report.json: growth report schema: {error.message} at {list(error.absolute_path)}")
    failures += 1
if growths.is_valid({**growth_golden, "growing": [{**growth_golden["growing"][0], "kind": "cycle"}]}):
    print("the growth report schema accepts a finding of an unknown kind")
    failures += 1

# The JSON comparison (`diff --format json`): its golden files, and bad ones refused.
diff_schema = load(os.path.join(ROOT, "Documentation/schemas/heap-diff-v2.schema.json"))
jsonschema.Draft202012Validator.check_schema(diff_schema)
diffs = jsonschema.Draft202012Validator(diff_schema)
for name in ("heap-diff.json", "diff.json"):
    for error in diffs.iter_errors(load(os.path.join(ROOT, "Tests/HeapGraphTests/__Snapshots__", name))):
        print(f"{name}: diff schema: {error.message} at {list(error.absolute_path)}")
        failures += 1
diff_golden = load(os.path.join(ROOT, "Tests/HeapGraphTests/__Snapshots__/heap-diff.json"))
bad_diffs = {
    "a type of an unknown status": {**diff_golden, "types": [{**diff_golden["types"][0], "status": "bigger"}]},
    "version 1": {**diff_golden, "version": 1},
    "a path without its links": {**diff_golden, "paths": [{k: v for k, v in diff_golden["paths"][0].items() if k != "links"}]},
}
for name, document in bad_diffs.items():
    if diffs.is_valid(document):
        print(f"the diff schema accepts a bad report ({name})")
        failures += 1

# The JSON run report (`run --format json`): its golden files, with and without a gate outcome.
run_schema = load(os.path.join(ROOT, "Documentation/schemas/leak-run-v1.schema.json"))
jsonschema.Draft202012Validator.check_schema(run_schema)
runs = jsonschema.Draft202012Validator(run_schema)
run_reports = sorted(glob.glob(os.path.join(ROOT, "Tests/HeapGraphTests/__Snapshots__/run-report*.json")))
for path in run_reports:
    for error in runs.iter_errors(load(path)):
        print(f"{path}: run report schema: {error.message} at {list(error.absolute_path)}")
        failures += 1
if not run_reports:
    print("no golden JSON run report found")
    failures += 1
else:
    golden = load(run_reports[0])
    bad_runs = {
        "a suppressed group without its rule": {**golden, "suppressed": [{k: v for k, v in group.items() if k != "rule"}
                                                                          for group in golden["suppressed"]] or [{}]},
        "a diagnostic without occurrences": {**golden, "processes": [{**golden["processes"][0], "diagnostics": [{"kind": None, "message": "m"}]}]},
        "version 2": {**golden, "version": 2},
    }
    for name, document in bad_runs.items():
        if runs.is_valid(document):
            print(f"the run report schema accepts a bad run report ({name})")
            failures += 1

print(f"schemas: {checked} snapshots and their reports checked, {len(bad)} bad snapshots rejected, "
      f"{len(run_reports)} run reports checked, "
      f"{sarif_checked} SARIF logs checked against SARIF 2.1.0, {failures} problems")
sys.exit(1 if failures else 0)
