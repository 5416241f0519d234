#!/usr/bin/env bash
# The torch backend's collectives over c10d Gloo under an MPI launcher (tests/mpi/CMakeLists.txt):
#   pass    every case of suites/collectives.json PASSES on every rank with the torch.*.gloo keys
#   single  no launcher: one rank; only the root-1 broadcasts skip
# Exits 77 (skipped) without mpirun, without the torch backend or its Gloo process group, or where
# the torch backend's devices are GPUs.
# usage: mpi_torch_collectives.sh SCENARIO MPIRUN OPCERT NP OUTDIR
set -uo pipefail
scenario=$1 mpirun=$2 opcert=$3 np=$4 out=$5
if [ "$scenario" != single ] && [ -z "$mpirun" ]; then
  echo "skipped: no mpirun, or opcert built without MPI (OPCERT_WITH_MPI)"
  exit 77
fi
listing=$("$opcert" list 2>/dev/null)  # not piped into grep -q: pipefail would see opcert's SIGPIPE
if ! grep -q 'torch\.all_reduce\.gloo' <<< "$listing"; then
  echo "skipped: opcert has no torch backend (OPCERT_WITH_TORCH)"
  exit 77
fi
rm -rf "$out"
# Loopback TCP only, oversubscribed cores, root allowed: what a CI container has. The c10d store
# and Gloo listen on this host's name; MASTER_ADDR keeps them on loopback too.
export OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_odls_base_sigkill_timeout=5 MASTER_ADDR=127.0.0.1
run=("$opcert" run --suite collectives --backend torch --impl 'torch.*.gloo' --out "$out" --progress plain --timeout 60)
case "$scenario" in
  pass)
    launch=("$mpirun" --oversubscribe -np "$np")
    [ "$(id -u)" = 0 ] && launch+=(--allow-run-as-root)
    "${launch[@]}" -x MASTER_ADDR "${run[@]}" > "$out.log" 2>&1
    rc=$? ;;
  single)
    "${run[@]}" > "$out.log" 2>&1
    rc=$? ;;
  *) echo "unknown scenario $scenario"; exit 1 ;;
esac
cat "$out.log"
echo "exit code $rc"
if grep -q "no c10d ProcessGroupGloo" "$out.log"; then
  echo "skipped: this torch backend has no Gloo process group (OPCERT_WITH_TORCH_GLOO)"
  exit 77
fi
if grep -q "the gloo keys run on host memory" "$out.log"; then
  echo "skipped: the torch backend runs on CUDA devices here (ci/gpu/torch_collectives.sh tests those)"
  exit 77
fi

python3 - "$scenario" "$out" "$np" "$rc" <<'PY'
import json, sys
scenario, out, np, rc = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
def fail(why):
    print("FAILED:", why); sys.exit(1)
try:
    report = json.load(open(out + "/report.json"))
except Exception as e:
    fail(f"no readable report.json: {e}")
results = report["results"]
if rc != 0: fail(f"exit code {rc}")
if report["ranks"]["count"] != np: fail(f"report says {report['ranks']['count']} ranks, expected {np}")
by = {}
for r in results:
    if not r["impl"].startswith("torch.") or not r["impl"].endswith(".gloo"): fail(f"unexpected implementation {r['impl']}")
    by.setdefault((r["impl"], r["case"]), {})[r["rank"]] = r
if not by: fail("no results")
if any(len(v) != np for v in by.values()): fail("some case lacks a result from some rank")
ops = {r["op"] for r in results}
if ops != {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all"}: fail(f"ops run: {ops}")
statuses = {r["status"] for r in results}
if scenario == "pass":
    if statuses != {"PASSED"}:
        fail(f"statuses {statuses}: " + "; ".join(r["message"] for r in results if r["status"] != "PASSED")[:2000])
    if report["ranks"]["launcher"] != "mpi": fail("launcher is not mpi")
    print(f"ok: {len(results)} results ({len(by)} cases x {np} ranks) PASSED")
else:
    skipped = [r for r in results if r["status"] == "SKIPPED"]
    if statuses - {"PASSED", "SKIPPED"} or not skipped or any("root 1" not in r["message"] for r in skipped):
        fail(f"statuses {statuses}; only the root-1 broadcasts may skip")
    print(f"ok: {len(results)} results on one rank, {len(skipped)} skipped (root 1)")
PY
