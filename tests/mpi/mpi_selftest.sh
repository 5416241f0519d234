#!/usr/bin/env bash
# `opcert selftest` on the collectives under mpirun (tests/mpi/CMakeLists.txt): on NP ranks every
# collective mutant of backends/mutants is caught by suites/collectives.json and every twin passes,
# and every rank exits 0; an --out that cannot be written ends every rank with exit 2 at once.
# usage: mpi_selftest.sh MPIRUN OPCERT NP OUTDIR
set -uo pipefail
mpirun=$1 opcert=$2 np=$3 out=$4
if [ -z "$mpirun" ]; then
  echo "skipped: no mpirun, or opcert built without MPI (OPCERT_WITH_MPI)"
  exit 77
fi
rm -rf "$out"
source "$(dirname "$0")/mpi_env.sh"
"${launch[@]}" "$opcert" selftest --out "$out" --timeout 60 > "$out.log" 2>&1
rc=$?
cat "$out.log"
[ "$rc" = 0 ] || { echo "FAILED: exit code $rc, expected 0 (every mutant caught, every twin passing)"; exit 1; }
python3 - "$out/selftest.json" "$np" <<'PY' || exit 1
import json, sys
j = json.load(open(sys.argv[1]))
ops = {m["op"] for m in j["mutants"]}
want = {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all"}
assert ops == want, f"collectives with mutants: {sorted(ops)}, expected {sorted(want)}"
for op in want:
    n = sum(1 for m in j["mutants"] if m["op"] == op)
    assert n >= 2, f"{op} has {n} mutant(s), at least 2 expected"
escaped = [m["key"] for m in j["mutants"] if not m["caught"]]
assert not escaped and not j["twin_alarms"], f"escaped {escaped}, twin alarms {j['twin_alarms']}"
print(f"ok: {j['mutants_caught']} of {j['mutants_total']} collective mutants caught on {sys.argv[2]} ranks, twins silent on {j['twin_results']} results")
PY
touch "$out.file"
start=$(date +%s)
"${launch[@]}" "$opcert" selftest --out "$out.file" > "$out.bad.log" 2>&1
rc=$?
elapsed=$(( $(date +%s) - start ))
[ "$rc" = 2 ] && [ "$elapsed" -le 60 ] || { cat "$out.bad.log"; echo "FAILED: a file as --out gave exit $rc in $elapsed s, expected 2 at once"; exit 1; }
echo "ok: a file as --out ends every rank with exit 2 in $elapsed s"
