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

# The hung rank's own watchdog reports it TIMEOUT.
timeout_ranks=""
[ "$scenario" = hang ] && timeout_ranks=2
exec python3 "$(dirname "$0")/check_collective_report.py" "$scenario" "$out" "$np" "$rc" "${elapsed:-0}" "$timeout_ranks"
