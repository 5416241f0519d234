#!/usr/bin/env python3
"""Checks a run spread over ranks against one process's run of the same job (mpi_spread.sh,
slurm_spread.sh): the same cases, each once, in the suite's order, with the same verdicts, every
rank having run a share. usage: check_spread.py OUT NP pass|kill, where OUT holds single/ and
ranks/ (and kept.jsonl, the results kept before a kill, for `kill`)."""
import sys
from collections import Counter
from spread_rows import fail, lines, reports, same_rows
out, np, scenario = sys.argv[1], int(sys.argv[2]), sys.argv[3]
single, ranks = reports(out)
key = lambda r: (r["backend"], r["impl"], r["case"])
want = [key(r) for r in single["results"]]
got = [key(r) for r in ranks["results"]]
same_rows(want, got, "run")
if [key(r) for r in lines(f"{out}/ranks/results.jsonl")] != want: fail("results.jsonl is not in the suite's order")
# Verdicts exactly; the alignment figure paired with the peer's result of the same case wherever
# each ran (its value moves a little: a rank's CPU partition has one core, one process two, and the
# GEMMs' sums, the peer's too, split over their threads differently).
verdict = {key(r): (r["status"], r.get("alignment_ratio")) for r in single["results"]}
for r in ranks["results"]:
    status, ratio = verdict[key(r)]
    if r["status"] != status:
        fail(f"{key(r)}: {r['status']} across ranks, {status} in one process")
    if (r.get("alignment_ratio") is None) != (ratio is None):
        fail(f"{key(r)}: alignment {r.get('alignment_ratio')} across ranks, {ratio} in one process: not paired with the peer")
if not ranks["complete"]: fail("report.json says incomplete")
if ranks["ranks"]["count"] != np: fail(f"ranks: {ranks['ranks']}")
by_rank = Counter(r.get("rank") for r in ranks["results"])
if sorted(by_rank) != list(range(np)): fail(f"not every rank ran a share: {dict(by_rank)}")
if scenario == "kill":
    kept = {key(r): r for r in lines(f"{out}/kept.jsonl")}
    now = {key(r): r for r in ranks["results"]}
    for k, r in kept.items():
        if (now[k].get("rank"), now[k].get("device")) != (r.get("rank"), r.get("device")):
            fail(f"{k}: a result kept from before the kill was run again")
    print(f"resume: {len(kept)} kept, {len(now) - len(kept)} run after the kill")
print(f"ok: {len(got)} results from {np} ranks ({dict(by_rank)}), the same cases and verdicts as one process, in its order")
