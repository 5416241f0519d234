#!/usr/bin/env python3
"""Checks a bench spread over ranks against one process's bench of the same job
(mpi_spread.sh): the same rows, each once, in the suite's order, in report.json,
measurements.jsonl, bench.json and results.jsonl; every row tagged with its rank and device, every
rank having timed a share; `opcert compare` of the two with no missing or extra row. Never a time.
usage: check_bench_spread.py OUT NP pass|kill, where OUT holds single/, ranks/ and compare.json (and
kept.jsonl, the measurements kept before a kill, for `kill`)."""
import json, sys
from collections import Counter
from spread_rows import fail, lines, reports, same_rows
out, np, scenario = sys.argv[1], int(sys.argv[2]), sys.argv[3]
single, ranks = reports(out)
row = lambda b: (b["backend"], b["impl_key"], b["case_id"], b["peer"], b["copy_baseline"])
want = [row(b) for b in single["benchmarks"]]
got = [row(b) for b in ranks["benchmarks"]]
if not want: fail("one process timed nothing")
same_rows(want, got, "bench")
if [row(b) for b in lines(f"{out}/ranks/measurements.jsonl")] != want: fail("measurements.jsonl is not in the suite's order")
# A resumed bench's kept rows come back from measurements.jsonl, which keeps each run's figures and
# aggregates (in Google Benchmark's order) but not its name suffix (/iterations:1/manual_time): after
# a kill, the names without it.
names = lambda path: [b["name"] if scenario == "pass" else b["name"].replace("/iterations:1/manual_time", "")
                      for b in json.load(open(path))["benchmarks"]]
if names(f"{out}/ranks/bench.json") != names(f"{out}/single/bench.json"): fail("bench.json's runs differ from one process's")
result = lambda r: (r["backend"], r["impl"], r["case"], r["status"])
if [result(r) for r in lines(f"{out}/ranks/results.jsonl")] != [result(r) for r in lines(f"{out}/single/results.jsonl")]:
    fail("results.jsonl differs from one process's (cases, order or verdicts)")
if [result(r) for r in ranks["results"]] != [result(r) for r in single["results"]]:
    fail("report.json's results differ from one process's (cases, order or verdicts)")
for b in ranks["benchmarks"]:
    if b.get("rank") is None or b.get("device") is None: fail(f"{row(b)}: no rank or device")
if not ranks["complete"]: fail("report.json says incomplete")
if ranks["ranks"]["count"] != np: fail(f"ranks: {ranks['ranks']}")
by_rank = Counter(b["rank"] for b in ranks["benchmarks"])
if sorted(by_rank) != list(range(np)): fail(f"not every rank timed a share: {dict(by_rank)}")
compare = json.load(open(f"{out}/compare.json"))
missing = [t for t in compare["timings"] if t["verdict"] == "missing"]
if missing or len(compare["timings"]) != len(want): fail(f"compare: {len(compare['timings'])} timing rows for {len(want)}, missing {missing[:3]}")
if compare["statuses"]: fail(f"compare: statuses changed: {compare['statuses'][:3]}")
if scenario == "kill":
    kept = {row(b): b for b in lines(f"{out}/kept.jsonl")}
    now = {row(b): b for b in ranks["benchmarks"]}
    if not kept: fail("nothing was kept from before the kill")
    for k, b in kept.items():
        if (now[k].get("rank"), now[k].get("device"), now[k]["seconds"]) != (b.get("rank"), b.get("device"), b["seconds"]):
            fail(f"{k}: a benchmark kept from before the kill was timed again")
    print(f"resume: {len(kept)} kept, {len(now) - len(kept)} timed after the kill")
print(f"ok: {len(got)} benchmarks from {np} ranks ({dict(by_rank)}), the same rows and verdicts as one process, in its order")
