#!/usr/bin/env bash
# `opcert run --devices all --device-mode spread` across ranks under mpirun (docs/CLI.md, "Devices"):
# the CPU backend split into NP devices, one a rank; the ranks share the cases of a small gemm sweep
# and rank 0 writes one set of outputs with the same case set and verdicts as one process alone
# (`opcert compare` clean, every case once, in the suite's order). With `bench` last, the same of
# `opcert bench` (bench's "Ranks"): the same rows as one process's bench in every output, each with
# its rank and device, `opcert compare` with none missing; never a time (check_bench_spread.py).
#   pass: NP ranks against one process.
#   kill: rank 1 is killed mid-run; rank 0 writes what was measured; `--resume` under mpirun runs
#         the rest, keeping what finished, and the whole then matches one process.
# usage: mpi_spread.sh pass|kill MPIRUN OPCERT NP OUTDIR [run|bench]
set -uo pipefail
scenario=$1 mpirun=$2 opcert=$3 np=$4 out=$5 verb=${6:-run}
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
streamed=results.jsonl checker=check_spread.py
if [ "$verb" = bench ]; then
  # --no-peer: the peer is timed on each row's device, and the CPU peer has one device.
  args=(bench --backend cpu --no-peer --suite sweeps/gemm --max-time 0.1 --benchmark_min_time=0.02)
  [ "$scenario" = kill ] && filter='^gemm\.fp32\.m(1|33|128)\.'
  streamed=measurements.jsonl checker=check_bench_spread.py
fi

"$opcert" "${args[@]}" --filter "$filter" --out "$out/single" > "$out/single.log" 2>&1
rc=$?
[ "$rc" = 0 ] || { cat "$out/single.log"; echo "FAILED: one process exited $rc"; exit 1; }

unplaced=(env OPCERT_CPU_DEVICES="$np" "${launch[@]}" --bind-to none -x OPCERT_CPU_DEVICES "$opcert" "${args[@]}"
          --filter "$filter")
ranks=("${unplaced[@]}" --devices all)
if [ "$scenario" = pass ]; then
  "${ranks[@]}" --out "$out/ranks" > "$out/ranks.log" 2>&1
  rc=$?
  cat "$out/ranks.log"
  [ "$rc" = 0 ] || { echo "FAILED: $np ranks exited $rc"; exit 1; }
  if [ "$verb" = bench ]; then  # what a bench across ranks refuses: one line from each rank, exit 2
    for refused in "--device-mode each:--devices all --device-mode each" "needs --devices:"; do
      "${unplaced[@]}" ${refused#*:} --out "$out/refused" > "$out/refused.log" 2>&1
      rc=$?
      [ "$rc" = 2 ] && [ "$(grep -c "error: .*${refused%%:*}" "$out/refused.log")" = "$np" ] ||
        { cat "$out/refused.log"; echo "FAILED: '${refused#*:}' across ranks exited $rc, not 2 with one line a rank"; exit 1; }
    done
  fi
else
  "${ranks[@]}" --out "$out/ranks" > "$out/ranks.log" 2>&1 &
  launcher=$!
  # Once a few results are in, kill rank 1 (the opcert under mpirun whose world rank is 1).
  for _ in $(seq 600); do
    [ "$(cat "$out/ranks/$streamed" 2>/dev/null | wc -l)" -ge 4 ] && break
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
  grep -q "opcert: rank 1[: ]" "$out/ranks.log" || { echo "FAILED: the job's output does not name rank 1"; exit 1; }
  python3 - "$out/ranks" <<'PY' || exit 1
import json, sys
report = json.load(open(sys.argv[1] + "/report.json"))
if report["complete"]:
    print("FAILED: the interrupted run's report says complete"); sys.exit(1)
print(f"interrupted {report['kind']}: {len(report.get('benchmarks') or report['results'])} row(s) kept")
PY
  cp "$out/ranks/$streamed" "$out/kept.jsonl"
  "${ranks[@]}" --resume "$out/ranks" > "$out/resume.log" 2>&1
  rc=$?
  cat "$out/resume.log"
  [ "$rc" = 0 ] || { echo "FAILED: the resumed job exited $rc"; exit 1; }
fi

# The verdicts must match; a bench's timings (five repetitions: rank-testable) are not compared, since
# the ranks share this host's cores with each other where the single process had them alone.
"$opcert" compare "$out/single" "$out/ranks" --fail-on status,alignment --json "$out/compare.json" > "$out/compare.log" 2>&1
rc=$?
cat "$out/compare.log"
[ "$rc" = 0 ] || { echo "FAILED: compare of one process and $np ranks exited $rc"; exit 1; }

exec python3 "$(dirname "$0")/$checker" "$out" "$np" "$scenario"
