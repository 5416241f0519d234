#!/usr/bin/env python3
"""`opcert bench --resume` after SIGKILL (docs/CLI.md, "Resuming a run"): a bench of small memory-bound
cases, each with its copy baseline (and the peer where this build has one), is killed with SIGKILL
after a random number of new measurements, KILLS times, and resumed each time. The finished bench
holds every benchmark of an uninterrupted one, once and in the same order, with the same checks; each
case's figures come from one sitting (a case cut short is measured again whole); every record of the
report is the last line of its benchmark in measurements.jsonl; results.jsonl holds each result once.
Then the refusals: another seed, and measurements without job.json, each one line and exit 2.

    resume_after_kill.py OPCERT SUITE WORKDIR
"""
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time

KILLS = 4


def bench_args(opcert, suite, *extra):
    return [opcert, "bench", "--backend", "cpu", "--suite", suite, "--copy-baseline", "--max-noise", "0",
            "--benchmark_min_time=0.02", *extra]


def lines_of(path):
    try:
        with open(path) as f:
            return [json.loads(line) for line in f if line.endswith("\n")]
    except FileNotFoundError:
        return []


def checks(doc):
    return [((r["backend"], r["impl"], r["case"]), r["status"], r["message"]) for r in doc["results"]]


def main(opcert, suite, work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    reference, resumed = os.path.join(work, "uninterrupted"), os.path.join(work, "resumed")
    log = open(os.path.join(work, "benches.log"), "w")
    expected_code = subprocess.call(bench_args(opcert, suite, "--out", reference), stdout=log, stderr=log)
    ref = json.load(open(os.path.join(reference, "report.json")))
    names = [b["name"] for b in ref["benchmarks"]]
    print(f"uninterrupted: exit {expected_code}, {len(names)} benchmarks")
    if len(names) < 2 * len({b["case_id"] for b in ref["benchmarks"]}):
        sys.exit("FAILED: fewer than two benchmarks a case; the test proves nothing")

    rng = random.Random(2026)
    measurements = os.path.join(resumed, "measurements.jsonl")
    per_case = {}
    for b in ref["benchmarks"]:
        per_case.setdefault(b["case_id"], set()).add(b["name"])
    snapshots = []  # measurements.jsonl after each kill
    for _ in range(KILLS):
        before = len(lines_of(measurements))
        proc = subprocess.Popen(bench_args(opcert, suite, "--resume", resumed), stdout=log, stderr=log)
        target = before + rng.randint(1, 3)
        while proc.poll() is None and len(lines_of(measurements)) < target:
            time.sleep(0.002)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        snapshots.append({r["name"]: r for r in lines_of(measurements)})
    print(f"measurements on disk after each kill: {[len(s) for s in snapshots]}")
    code = subprocess.call(bench_args(opcert, suite, "--resume", resumed), stdout=log, stderr=log)
    if code != expected_code:
        sys.exit(f"FAILED: the resumed bench exited {code}, the uninterrupted one {expected_code} (see {log.name})")

    doc = json.load(open(os.path.join(resumed, "report.json")))
    got = [b["name"] for b in doc["benchmarks"]]
    if got != names:
        sys.exit(f"FAILED: the resumed report's benchmarks {got} are not the uninterrupted one's {names}")
    if checks(doc) != checks(ref):
        sys.exit("FAILED: the resumed report's checks differ from the uninterrupted bench's")
    job = json.load(open(os.path.join(resumed, "job.json")))
    if doc["started_at"] != job["started_at"]:
        sys.exit(f"FAILED: the report starts at {doc['started_at']}, the job at {job['started_at']}")
    # The id a history knows the run by is the first sitting's: job.json's, kept through every resume.
    if not job.get("run_id") or doc.get("run_id") != job["run_id"]:
        sys.exit(f"FAILED: the report's run_id {doc.get('run_id')} is not the job's {job.get('run_id')}")

    on_disk = lines_of(measurements)
    if sorted(r["name"] for r in on_disk) != sorted(names):
        sys.exit(f"FAILED: measurements.jsonl holds {len(on_disk)} lines for {len(names)} benchmarks")
    for record in doc["benchmarks"]:
        line = next(r for r in on_disk if r["name"] == record["name"])
        if line != record:
            sys.exit(f"FAILED: the report's record of {record['name']} is not its measurements.jsonl line")
    results = lines_of(os.path.join(resumed, "results.jsonl"))
    ids = [(r["backend"], r["impl"], r["case"]) for r in results]
    if len(ids) != len(set(ids)) or set(ids) != {c[0] for c in checks(ref)}:
        sys.exit(f"FAILED: results.jsonl holds {len(ids)} lines for {len(set(ids))} results; expected each of "
                 f"{len(checks(ref))} once")

    # Each case's figures from one sitting: a case whole on disk at a kill is kept as it was; a case cut
    # short there is measured again, every benchmark of it.
    final = {b["name"]: b for b in doc["benchmarks"]}
    cut_short = whole = 0
    for snapshot in snapshots:
        for case, members in per_case.items():
            there = members & snapshot.keys()
            if there == members:
                whole += 1
                if any(final[n] != snapshot[n] for n in members):
                    sys.exit(f"FAILED: case {case}, measured whole before a kill, was not kept as it was")
            elif there:
                cut_short += 1
                if any(final[n] == snapshot[n] for n in there):
                    sys.exit(f"FAILED: case {case}, cut short by a kill, kept a figure of the sitting that was killed")
    if cut_short == 0 or whole == 0:
        sys.exit(f"FAILED: the kills left {cut_short} case(s) cut short and {whole} whole; the test proves nothing")
    print(f"ok: {len(got)} benchmarks equal in name, order and checks to the uninterrupted bench's after {KILLS} kills; "
          f"{cut_short} case(s) cut short were measured again whole, {whole} whole ones kept")

    other = subprocess.run(bench_args(opcert, suite, "--resume", resumed, "--seed", "2"), capture_output=True, text=True)
    if other.returncode != 2 or "seed: 2 here, 1 in the run being resumed" not in other.stderr:
        sys.exit(f"FAILED: resuming with another seed: exit {other.returncode}, stderr {other.stderr!r}")
    os.remove(os.path.join(resumed, "job.json"))
    bare = subprocess.run(bench_args(opcert, suite, "--resume", resumed), capture_output=True, text=True)
    if bare.returncode != 2 or "holds measurements but no job.json" not in bare.stderr:
        sys.exit(f"FAILED: resuming a folder without job.json: exit {bare.returncode}, stderr {bare.stderr!r}")
    print("ok: another seed and a folder without job.json are refused, exit 2")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])
