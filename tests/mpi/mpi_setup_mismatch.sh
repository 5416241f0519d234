#!/usr/bin/env bash
# Ranks that load different inputs are refused before anything runs (docs/CERTIFY.md, "Devices and
# ranks"): rank 1 gets another platform config file than rank 0 (mpirun's MPMD form, one
# OPCERT_PLATFORM_JSON per rank), so its devices would be judged under another platform than rank
# 0's report names. Rank 0 must exit 2 naming rank 1 and the platform configs; no report is written.
# usage: mpi_setup_mismatch.sh MPIRUN OPCERT OUTDIR
set -uo pipefail
mpirun=$1 opcert=$2 out=$3 np=1
if [ -z "$mpirun" ]; then
  echo "skipped: no mpirun, or opcert built without MPI (OPCERT_WITH_MPI)"
  exit 77
fi
rm -rf "$out" && mkdir -p "$out"
source "$(dirname "$0")/mpi_env.sh"
for tol in 1 2; do
  printf '{"name": "ranked", "description": "rank %s", "backend": "cpu", "implementations": {"softmax": "cpu.softmax.rowwise"}}' \
    "$tol" > "$out/platform$tol.json"
done
args=(run --backend cpu --no-peer --filter '^softmax.fp32' --devices all --platform ranked --progress plain --out "$out/run")
OPCERT_CPU_DEVICES=2 "${launch[@]}" --bind-to none -x OPCERT_CPU_DEVICES -x OPCERT_PLATFORM_JSON="$out/platform1.json" \
  "$opcert" "${args[@]}" : -np 1 -x OPCERT_PLATFORM_JSON="$out/platform2.json" "$opcert" "${args[@]}" > "$out/log" 2>&1
rc=$?
cat "$out/log"
echo "run: exit code $rc"
[ "$rc" = 2 ] || { echo "FAILED: exit $rc, expected 2 (bad input: the ranks' setups differ)"; exit 1; }
grep -q "rank 1 runs with another platform configs than rank 0" "$out/log" || { echo "FAILED: no line naming rank 1 and its platform configs"; exit 1; }
[ ! -f "$out/run/report.json" ] || { echo "FAILED: a report was written"; exit 1; }
echo "ok: refused before anything ran"
