#!/usr/bin/env bash
# `opcert run --devices all --device-mode spread` across ranks under mpirun (docs/CLI.md, "Devices"):
# the CPU backend split into NP devices, one a rank; the ranks share the cases of a small gemm sweep
# and rank 0 writes one set of outputs with the same case set and verdicts as one process alone
# (`opcert compare` clean, every case once, in the suite's order).
#   pass: NP ranks against one process.
#   kill: rank 1 is killed mid-run; rank 0 writes what was measured; `--resume` under mpirun runs
#         the rest, keeping what finished, and the whole then matches one process.
# usage: mpi_spread.sh pass|kill MPIRUN OPCERT NP OUTDIR
set -uo pipefail
scenario=$1 mpirun=$2 opcert=$3 np=$4 out=$5
if [ -z "$mpirun" ]; then
  echo "skipped: no mpirun, or opcert built without MPI (OPCERT_WITH_MPI)"
  exit 77
fi
rm -rf "$out"
mkdir -p "$out"
source "$(dirname "$0")/mpi_env.sh"
args=(run --backend cpu --suite sweeps/gemm --progress plain)
filter='^gemm\.fp32\.m(33|128)\.n47\.'
[ "$scenario" = kill ] && filter='^gemm\.(fp32|bf16)\.m(1|33|128)\.'

"$opcert" "${args[@]}" --filter "$filter" --out "$out/single" > "$out/single.log" 2>&1
rc=$?
[ "$rc" = 0 ] || { cat "$out/single.log"; echo "FAILED: one process exited $rc"; exit 1; }

ranks=(env OPCERT_CPU_DEVICES="$np" "${launch[@]}" --bind-to none -x OPCERT_CPU_DEVICES "$opcert" "${args[@]}"
       --filter "$filter" --devices all)
if [ "$scenario" = pass ]; then
  "${ranks[@]}" --out "$out/ranks" > "$out/ranks.log" 2>&1
  rc=$?
  cat "$out/ranks.log"
  [ "$rc" = 0 ] || { echo "FAILED: $np ranks exited $rc"; exit 1; }
else
  "${ranks[@]}" --out "$out/ranks" > "$out/ranks.log" 2>&1 &
  launcher=$!
  # Once a few results are in, kill rank 1 (the opcert under mpirun whose world rank is 1).
  for _ in $(seq 600); do
    [ "$(wc -l < "$out/ranks/results.jsonl" 2>/dev/null || echo 0)" -ge 4 ] && break
    sleep 0.1
  done
  victim=""
  for pid in $(pgrep -P "$launcher"); do
    tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=1' && victim=$pid
  done
  [ -n "$victim" ] || { cat "$out/ranks.log"; echo "FAILED: rank 1 not found under mpirun $launcher"; exit 1; }
  kill -KILL "$victim"
  wait "$launcher"
  rc=$?
  cat "$out/ranks.log"
  echo "killed rank 1 (pid $victim): the job exited $rc"
  [ "$rc" != 0 ] || { echo "FAILED: the job exited 0 though rank 1 was killed"; exit 1; }
  python3 - "$out/ranks" <<'PY' || exit 1
import json, sys
report = json.load(open(sys.argv[1] + "/report.json"))
if report["complete"]:
    print("FAILED: the interrupted run's report says complete"); sys.exit(1)
print(f"interrupted run: {len(report['results'])} result(s) kept")
PY
  cp "$out/ranks/results.jsonl" "$out/kept.jsonl"
  "${ranks[@]}" --resume "$out/ranks" > "$out/resume.log" 2>&1
  rc=$?
  cat "$out/resume.log"
  [ "$rc" = 0 ] || { echo "FAILED: the resumed job exited $rc"; exit 1; }
fi

"$opcert" compare "$out/single" "$out/ranks" > "$out/compare.log" 2>&1
rc=$?
cat "$out/compare.log"
[ "$rc" = 0 ] || { echo "FAILED: compare of one process and $np ranks exited $rc"; exit 1; }

exec python3 - "$out" "$np" "$scenario" <<'PY'
import json, sys
from collections import Counter
out, np, scenario = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def fail(why):
    print("FAILED:", why)
    sys.exit(1)
def lines(path):
    return [json.loads(l) for l in open(path) if l.strip()]
single = json.load(open(f"{out}/single/report.json"))
ranks = json.load(open(f"{out}/ranks/report.json"))
key = lambda r: (r["backend"], r["impl"], r["case"])
want = [key(r) for r in single["results"]]
got = [key(r) for r in ranks["results"]]
dups = [k for k, n in Counter(got).items() if n > 1]
if dups: fail(f"duplicated: {dups[:5]}")
missing = set(want) - set(got)
if missing: fail(f"missing: {sorted(missing)[:5]}")
if set(got) - set(want): fail(f"not in one process's run: {sorted(set(got) - set(want))[:5]}")
if got != want: fail("report.json is not in the suite's order (one process's)")
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
PY
