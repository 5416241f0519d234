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
source "$(dirname "$0")/mpi_env.sh"
# The c10d store and Gloo listen on this host's name; MASTER_ADDR keeps them on loopback too.
export MASTER_ADDR=127.0.0.1
run=("$opcert" run --suite collectives --backend torch --impl 'torch.*.gloo' --out "$out" --progress plain --timeout 60)
case "$scenario" in
  pass)
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

# The statuses, ranks and launcher as for every collectives run; then that the Gloo keys ran every op.
python3 "$(dirname "$0")/check_collective_report.py" "$scenario" "$out" "$np" "$rc" 0 || exit 1
exec python3 - "$out" <<'PY'
import json, sys
results = json.load(open(sys.argv[1] + "/report.json"))["results"]
if not results: print("FAILED: no results"); sys.exit(1)
odd = {r["impl"] for r in results if not (r["impl"].startswith("torch.") and r["impl"].endswith(".gloo"))}
if odd: print(f"FAILED: unexpected implementations {odd}"); sys.exit(1)
ops = {r["op"] for r in results}
if ops != {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all"}: print(f"FAILED: ops run: {ops}"); sys.exit(1)
print(f"ok: every result on a torch.*.gloo key, all five collectives")
PY
