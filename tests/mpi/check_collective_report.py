#!/usr/bin/env python3
"""Checks the report of a collectives run under mpirun (tests/mpi/*.sh).

usage: check_collective_report.py SCENARIO OUT NP RC ELAPSED [TIMEOUT_RANKS [MAX_SECONDS]]
  pass    every case PASSED on every rank, exit code 0, launcher mpi
  single  one rank without a launcher: PASSED, only the root-1 broadcasts SKIPPED
  other   a fault at a rank's 2nd of 3 collectives: the job failed within MAX_SECONDS (40), the
          first case PASSED, the broken one is TIMEOUT or ERROR on every rank (TIMEOUT on each of
          TIMEOUT_RANKS, comma-separated), the last one ERROR (not run), the report incomplete
"""
import json
import sys


def fail(why):
    print("FAILED:", why)
    sys.exit(1)


def main():
    scenario, out, np, rc, elapsed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    timeout_ranks = [int(r) for r in sys.argv[6].split(",") if r] if len(sys.argv) > 6 else []
    max_seconds = int(sys.argv[7]) if len(sys.argv) > 7 else 40
    try:
        report = json.load(open(out + "/report.json"))
    except Exception as e:
        fail(f"no readable report.json: {e}")
    results = report["results"]
    by = {}
    for r in results:
        by.setdefault(r["case"], {})[r["rank"]] = r
    if report["ranks"]["count"] != np:
        fail(f"report says {report['ranks']['count']} ranks, expected {np}")
    if any(len(v) != np for v in by.values()):
        fail("some case lacks a result from some rank")
    statuses = {r["status"] for r in results}
    if scenario == "pass":
        if rc != 0:
            fail(f"exit code {rc}")
        if statuses != {"PASSED"}:
            fail(f"statuses {statuses}: " +
                 "; ".join(f"{r['case']}: {r['message']}" for r in results if r["status"] != "PASSED")[:3000])
        if report["ranks"]["launcher"] != "mpi":
            fail("launcher is not mpi")
        print(f"ok: {len(results)} results ({len(by)} cases x {np} ranks) PASSED")
    elif scenario == "single":
        if rc != 0:
            fail(f"exit code {rc}")
        if report["ranks"]["launcher"] != "single":
            fail("launcher is not single")
        skipped = [r for r in results if r["status"] == "SKIPPED"]
        if statuses - {"PASSED", "SKIPPED"} or any("root 1" not in r["message"] for r in skipped) or not skipped:
            fail(f"statuses {statuses}; only the root-1 broadcasts may skip")
        if "single rank" not in open(out + ".log").read():
            fail("the run did not say it ran as a single rank")
        print(f"ok: {len(results)} results on one rank, {len(skipped)} skipped (root 1)")
    else:
        if rc == 0:
            fail("the job exited 0 despite the fault")
        if elapsed > max_seconds:
            fail(f"the job took {elapsed} s, more than {max_seconds} s; the timeout is 4 s")
        ids = list(by)
        if len(ids) != 3:
            fail(f"{len(ids)} cases, expected 3")
        first, broken, never = (by[i] for i in ids)
        if any(r["status"] != "PASSED" for r in first.values()):
            fail("the case before the fault did not pass")
        bad = {r["status"] for r in broken.values()}
        if "PASSED" in bad or not bad <= {"TIMEOUT", "ERROR"}:
            fail(f"the broken case has statuses {bad}")
        for rank in timeout_ranks:
            if broken[rank]["status"] != "TIMEOUT":
                fail(f"rank {rank}'s result is {broken[rank]['status']}, not TIMEOUT: {broken[rank]['message']}")
        if any(r["status"] != "ERROR" for r in never.values()):
            fail("the case after the fault is not ERROR (not run)")
        if report["complete"]:
            fail("the report claims to be complete")
        print(f"ok: ended in {elapsed} s with exit code {rc}; broken case: " +
              "; ".join(f"rank {k} {v['status']}: {v['message']}" for k, v in sorted(broken.items())))


main()
