#!/usr/bin/env bash
# One scenario of the collectives under an MPI launcher (tests/mpi/CMakeLists.txt):
#   pass   every case of suites/collectives.json PASSES on every rank (np 2, 3 and 4)
#   hang   rank 2 hangs inside its 2nd collective: the job ends within the timeout + grace, the
#          report records TIMEOUT for that case and ERROR for the cases never run
#   exit_and_hang  rank 1 exits during its 2nd collective and rank 2 hangs in it: mpirun ends
#          the job, rank 0 still writes the report with the case it was in recorded ERROR
#   single no launcher: one rank, and opcert says so
#   bad_out  --out is a file: rank 0 cannot prepare it, and every rank exits 2 at once with its reason
# usage: mpi_collectives.sh SCENARIO MPIRUN OPCERT NP OUTDIR [FAULTY_PLUGIN]
set -uo pipefail
scenario=$1 mpirun=$2 opcert=$3 np=$4 out=$5 plugin=${6:-}
if [ "$scenario" != single ] && [ -z "$mpirun" ]; then
  echo "skipped: no mpirun, or opcert built without MPI (OPCERT_WITH_MPI)"
  exit 77
fi
rm -rf "$out"
source "$(dirname "$0")/mpi_env.sh"

case "$scenario" in
  pass)
    "${launch[@]}" "$opcert" run --suite collectives --backend cpu --out "$out" --progress plain --timeout 60 \
      > "$out.log" 2>&1
    rc=$? ;;
  bad_out)
    touch "$out"  # a file where the directory should be
    start=$(date +%s)
    "${launch[@]}" "$opcert" run --suite collectives --backend cpu --out "$out" --progress plain > "$out.log" 2>&1
    rc=$?
    elapsed=$(( $(date +%s) - start ))
    cat "$out.log"
    echo "exit code $rc in $elapsed s"
    [ "$rc" = 2 ] || { echo "FAILED: exit code $rc, expected 2"; exit 1; }
    [ "$elapsed" -le 60 ] || { echo "FAILED: took $elapsed s; the other ranks waited for rank 0"; exit 1; }
    grep -q "exists and is not a directory" "$out.log" || { echo "FAILED: rank 0's reason is missing"; exit 1; }
    echo "ok: every rank exited 2 in $elapsed s"
    exit 0 ;;
  single)
    "$opcert" run --suite collectives --backend cpu --out "$out" --progress plain > "$out.log" 2>&1
    rc=$? ;;
  hang | exit_and_hang)
    fault="hang:2@2"
    [ "$scenario" = exit_and_hang ] && fault="exit:1@2,hang:2@2"
    start=$(date +%s)
    OPCERT_TEST_FAULT=$fault "${launch[@]}" -x OPCERT_TEST_FAULT "$opcert" run --suite collectives \
      --plugin "$plugin" --backend faulty --filter '^all_reduce\.fp32\.count1001(\.max|\.min)?$' \
      --timeout 4 --out "$out" --progress plain > "$out.log" 2>&1
    rc=$?
    elapsed=$(( $(date +%s) - start )) ;;
esac
cat "$out.log"
echo "exit code $rc"

python3 - "$scenario" "$out" "$np" "$rc" "${elapsed:-0}" <<'PY'
import json, sys
scenario, out, np, rc, elapsed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
def fail(why):
    print("FAILED:", why); sys.exit(1)
try:
    report = json.load(open(out + "/report.json"))
except Exception as e:
    fail(f"no readable report.json: {e}")
results = report["results"]
by = {}
for r in results:
    by.setdefault(r["case"], {})[r["rank"]] = r
if report["ranks"]["count"] != np: fail(f"report says {report['ranks']['count']} ranks, expected {np}")
suite_cases = len(by)
if any(len(v) != np for v in by.values()): fail("some case lacks a result from some rank")
statuses = {r["status"] for r in results}
if scenario == "pass":
    if rc != 0: fail(f"exit code {rc}")
    if statuses != {"PASSED"}: fail(f"statuses {statuses}: " + "; ".join(r["message"] for r in results if r["status"] != "PASSED")[:2000])
    if report["ranks"]["launcher"] != "mpi": fail("launcher is not mpi")
    print(f"ok: {len(results)} results ({suite_cases} cases x {np} ranks) PASSED")
elif scenario == "single":
    if rc != 0: fail(f"exit code {rc}")
    if report["ranks"]["launcher"] != "single": fail("launcher is not single")
    skipped = [r for r in results if r["status"] == "SKIPPED"]
    if statuses - {"PASSED", "SKIPPED"} or any("root 1" not in r["message"] for r in skipped) or not skipped:
        fail(f"statuses {statuses}; only the root-1 broadcasts may skip")
    log = open(out + ".log").read()
    if "single rank" not in log: fail("the run did not say it ran as a single rank")
    print(f"ok: {len(results)} results on one rank, {len(skipped)} skipped (root 1)")
else:
    if rc == 0: fail("the job exited 0 despite the fault")
    if elapsed > 40: fail(f"the job took {elapsed} s; the timeout is 4 s")
    ids = list(by)
    if len(ids) != 3: fail(f"{len(ids)} cases, expected 3")
    first, broken, never = (by[i] for i in ids)
    if any(r["status"] != "PASSED" for r in first.values()): fail("the case before the fault did not pass")
    bad = {r["status"] for r in broken.values()}
    if "PASSED" in bad or not bad <= {"TIMEOUT", "ERROR"}: fail(f"the broken case has statuses {bad}")
    if scenario == "hang" and broken[2]["status"] != "TIMEOUT": fail("the hung rank's result is not TIMEOUT")
    if any(r["status"] != "ERROR" for r in never.values()): fail("the case after the fault is not ERROR (not run)")
    if report["complete"]: fail("the report claims to be complete")
    print(f"ok: ended in {elapsed} s with exit code {rc}; broken case: " +
          "; ".join(f"rank {k} {v['status']}: {v['message']}" for k, v in sorted(broken.items())))
PY
