#!/usr/bin/env python3
"""`opcert run --resume` after SIGKILL (docs/CLI.md, "Resuming a run"): a run of the smoke suite on the
cpu backend and its peer is killed with SIGKILL at twenty random points and resumed each time (a
point: a random number of new results into the run, or a random instant of its start-up, before any
result); the finished run's report equals an uninterrupted run's, case for case, and results.jsonl
holds every job once. Then the refusals: another seed, and a folder with results but no job.json,
each one line and exit 2.

    resume_after_kill.py OPCERT WORKDIR
"""
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time

KILLS = 20


def run_args(opcert, *extra):
    return [opcert, "run", "--backend", "cpu", "--suite", "smoke", "--progress", "plain", *extra]


def complete_lines(path):
    try:
        with open(path) as f:
            return sum(1 for line in f if line.endswith("\n"))
    except FileNotFoundError:
        return 0


def children(pid):
    """The process's children (its workers), from /proc; empty where the kernel does not list them."""
    found = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                found += [int(c) for c in f.read().split()]
    except OSError:
        pass
    return found


def alive(pid):
    """Running, not a zombie waiting to be reaped."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def identity(r):
    return (r["backend"], r["impl"], r["case"])


def verdicts(report_path):
    doc = json.load(open(report_path))
    return doc, [(identity(r), r["status"], r["message"], [m["checked"] for m in r["metrics"]]) for r in doc["results"]]


def main(opcert, work):
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    reference, resumed = os.path.join(work, "uninterrupted"), os.path.join(work, "resumed")
    log = open(os.path.join(work, "runs.log"), "w")
    started = time.monotonic()
    expected_code = subprocess.call(run_args(opcert, "--out", reference), stdout=log, stderr=log)
    duration = time.monotonic() - started
    print(f"uninterrupted: exit {expected_code} in {duration:.1f} s")

    rng = random.Random(2026)
    kept, orphans, watched = [], [], 0
    path = os.path.join(resumed, "results.jsonl")
    for k in range(KILLS):
        before = complete_lines(path)
        proc = subprocess.Popen(run_args(opcert, "--resume", resumed), stdout=log, stderr=log)
        if k % 5 == 0:
            time.sleep(rng.uniform(0.0, 0.3))  # in the start-up: loading, job.json, the first worker
        else:
            target = before + rng.randint(1, 10)
            while proc.poll() is None and complete_lines(path) < target:
                time.sleep(0.002)
        workers = children(proc.pid)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        kept.append(complete_lines(path))
        deadline = time.monotonic() + 5
        while any(alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.01)
        orphans += [w for w in workers if alive(w)]
        watched += len(workers)
    print(f"results kept after each of {KILLS} kills: {kept}; {watched} workers of killed runners watched")
    if orphans:
        sys.exit(f"FAILED: workers {orphans} outlived their runner's SIGKILL by 5 s")
    code = subprocess.call(run_args(opcert, "--resume", resumed), stdout=log, stderr=log)
    if code != expected_code:
        sys.exit(f"FAILED: the resumed run exited {code}, the uninterrupted one {expected_code} (see {log.name})")

    ref_doc, ref = verdicts(os.path.join(reference, "report.json"))
    doc, got = verdicts(os.path.join(resumed, "report.json"))
    if not doc["complete"]:
        sys.exit("FAILED: the resumed run's report says complete: false")
    if [g[0] for g in got] != [r[0] for r in ref]:
        sys.exit(f"FAILED: the resumed report holds {len(got)} results, the uninterrupted {len(ref)}, or in another order")
    differ = [(g, r) for g, r in zip(got, ref) if g != r]
    if differ:
        sys.exit(f"FAILED: {len(differ)} result(s) differ, first: {differ[0][0]} against {differ[0][1]}")
    lines = [json.loads(line) for line in open(os.path.join(resumed, "results.jsonl"))]
    ids = [identity(r) for r in lines]
    if len(ids) != len(set(ids)) or set(ids) != {r[0] for r in ref}:
        sys.exit(f"FAILED: results.jsonl holds {len(ids)} lines for {len(set(ids))} jobs; expected each of {len(ref)} once")
    job = json.load(open(os.path.join(resumed, "job.json")))
    if doc["started_at"] != job["started_at"]:
        sys.exit(f"FAILED: the report starts at {doc['started_at']}, the job at {job['started_at']}")
    # The id a history knows the run by is the first sitting's: job.json's, kept through every resume.
    if not job.get("run_id") or doc.get("run_id") != job["run_id"]:
        sys.exit(f"FAILED: the report's run_id {doc.get('run_id')} is not the job's {job.get('run_id')}")
    if max(kept) == 0 or min(kept) == len(ref):
        sys.exit(f"FAILED: the kills did not fall inside the run (kept {kept}); the test proves nothing")
    print(f"ok: {len(got)} results equal to the uninterrupted run's after {KILLS} kills")

    # Refusals: another job in the folder, and results without a job file.
    other = subprocess.run(run_args(opcert, "--resume", resumed, "--seed", "2"), capture_output=True, text=True)
    if other.returncode != 2 or "seed: 2 here, 1 in the run being resumed" not in other.stderr:
        sys.exit(f"FAILED: resuming with another seed: exit {other.returncode}, stderr {other.stderr!r}")
    os.remove(os.path.join(resumed, "job.json"))
    bare = subprocess.run(run_args(opcert, "--resume", resumed), capture_output=True, text=True)
    if bare.returncode != 2 or "holds results but no job.json" not in bare.stderr:
        sys.exit(f"FAILED: resuming a folder without job.json: exit {bare.returncode}, stderr {bare.stderr!r}")
    print("ok: another seed and a folder without job.json are refused, exit 2")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
