#!/usr/bin/env bash
# One scenario of `opcert bench` on collectives under an MPI launcher (tests/mpi/CMakeLists.txt):
#   pass   a small sweep of suites/bench/collectives.json on the CPU backend: every row PASSED and
#          timed on every rank, sizes and counts as nccl-tests means them, busbw = algbw x factor
#   hang   rank 1 hangs inside the warm-up of the 2nd size: the job ends within the timeout +
#          grace, the outputs are written, the first size PASSED, the broken one TIMEOUT or ERROR,
#          the sizes never run ERROR
#   exit   rank 1 exits during the 2nd size: mpirun ends the job, rank 0 still writes the outputs
#   wrong  rank 1's first collective (the check of the first size) returns a wrong output: that row
#          is FAILED (and still timed), the others PASSED, the job completes with exit code 1
# usage: mpi_collective_bench.sh SCENARIO MPIRUN OPCERT NP OUTDIR [FAULTY_PLUGIN]
set -uo pipefail
scenario=$1 mpirun=$2 opcert=$3 np=$4 out=$5 plugin=${6:-}
if [ -z "$mpirun" ]; then
  echo "skipped: no mpirun, or opcert built without MPI (OPCERT_WITH_MPI)"
  exit 77
fi
rm -rf "$out"
source "$(dirname "$0")/mpi_env.sh"

start=$(date +%s)
case "$scenario" in
  pass)
    "${launch[@]}" "$opcert" bench --suite bench/collectives --backend cpu --no-peer --min-bytes 1K --max-bytes 64K \
      --step-factor 8 --iters 3 --warmup 1 --timeout 60 --out "$out" > "$out.log" 2>&1
    rc=$? ;;
  hang | exit | wrong)
    # Per size and rank: 1 checked + 1 warm-up + 2 timed collectives; the 6th is the 2nd size's warm-up.
    fault="hang:1@6"
    [ "$scenario" = exit ] && fault="exit:1@6"
    [ "$scenario" = wrong ] && fault="wrong:1@1"
    OPCERT_TEST_FAULT=$fault "${launch[@]}" -x OPCERT_TEST_FAULT "$opcert" bench --suite bench/collectives \
      --plugin "$plugin" --backend faulty --no-peer --filter '^all_reduce\.sum\.fp32' --impl 'faulty.*' \
      --min-bytes 1K --max-bytes 4K --iters 2 --warmup 1 --timeout 4 --out "$out" > "$out.log" 2>&1
    rc=$? ;;
esac
elapsed=$(( $(date +%s) - start ))
cat "$out.log"
echo "exit code $rc in $elapsed s"

python3 - "$scenario" "$out" "$np" "$rc" "$elapsed" <<'PY'
import json, sys
scenario, out, np, rc, elapsed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
def fail(why):
    print("FAILED:", why); sys.exit(1)
try:
    report = json.load(open(out + "/report.json"))
    bench = json.load(open(out + "/bench.json"))
except Exception as e:
    fail(f"no readable report.json / bench.json: {e}")
if report["kind"] != "opcert-bench-report": fail("not a bench report")
if report["ranks"]["count"] != np: fail(f"report says {report['ranks']['count']} ranks, expected {np}")
rows = report["benchmarks"]
if not rows: fail("no rows")
factors = {"all_reduce": 2 * (np - 1) / np, "broadcast": 1.0}
if scenario == "pass":
    if rc != 0: fail(f"exit code {rc}")
    if report["ranks"]["launcher"] != "mpi": fail("launcher is not mpi")
    ops = set()
    for r in rows:
        c = r["collective"]
        ops.add(r["op"])
        if r["check"] != "PASSED": fail(f"{r['name']}: {r['check']} {r['error']}")
        if len(c["seconds_per_rank"]) != np or any(s is None or s <= 0 for s in c["seconds_per_rank"]):
            fail(f"{r['name']}: a rank did not time: {c['seconds_per_rank']}")
        width = 4 if c["dtype"] == "fp32" else 2
        units = np if r["op"] in ("all_gather", "reduce_scatter", "all_to_all") else 1
        if c["size_bytes"] != c["count"] * width * units: fail(f"{r['name']}: size {c['size_bytes']} is not count x width x {units}")
        factor = factors.get(r["op"], (np - 1) / np)
        if abs(c["bus_factor"] - factor) > 1e-12: fail(f"{r['name']}: bus factor {c['bus_factor']}, expected {factor}")
        if abs(c["busbw_gbps"] - c["algbw_gbps"] * factor) > 1e-9 * max(1, c["busbw_gbps"]): fail(f"{r['name']}: busbw is not algbw x factor")
        mean = sum(c["seconds_per_rank"]) / np
        if abs(r["seconds"] - mean) > 1e-12 * max(1, mean): fail(f"{r['name']}: time is not the mean over the ranks")
    if ops != {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all"}: fail(f"ops {ops}")
    if len(bench["benchmarks"]) != len(rows): fail("bench.json lacks rows")
    if len(report["results"]) != len(rows) * np: fail("results lack a check per row and rank")
    print(f"ok: {len(rows)} rows on {np} ranks PASSED and timed")
elif scenario == "wrong":
    if rc != 1: fail(f"exit code {rc}, expected 1 (a wrong result)")
    if not report["complete"]: fail("the report is not complete")
    first = rows[0]
    if first["check"] != "FAILED": fail(f"the wrong row is {first['check']}")
    if "rank 1" not in first["error"]: fail(f"the message does not name rank 1: {first['error']}")
    if first["seconds"] is None: fail("the wrong row was not timed")
    if any(r["check"] != "PASSED" for r in rows[1:]): fail("a row after the wrong one did not pass")
    ranks = {r["rank"]: r["status"] for r in report["results"] if r["case"] == first["case_id"]}
    if ranks != {0: "PASSED", 1: "FAILED"}: fail(f"per-rank checks {ranks}")
    print(f"ok: the wrong row FAILED ({first['error']}), {len(rows) - 1} others PASSED, exit code 1")
else:
    if rc == 0: fail("the job exited 0 despite the fault")
    if elapsed > 60: fail(f"the job took {elapsed} s; the timeout is 4 s")
    if report["complete"]: fail("the report claims to be complete")
    by_case = {}
    for r in rows:
        by_case.setdefault(r["case_id"].rsplit(".bytes", 1)[0], []).append(r)
    first = rows[0]
    if first["check"] != "PASSED": fail(f"the size before the fault did not pass: {first['check']}")
    broken = rows[1]
    if broken["check"] not in ("TIMEOUT", "ERROR"): fail(f"the broken size is {broken['check']}")
    if any(r["check"] != "ERROR" for r in rows[2:]): fail("a size after the fault is not ERROR (not run)")
    print(f"ok: ended in {elapsed} s with exit code {rc}; broken size: {broken['check']}: {broken['error']}")
PY
