#!/usr/bin/env bash
# A bench suite twice, back to back, the second with --baseline the first (issue 42's "two runs
# compare clean"), on the GPU machine; then every row's change between the two (row_changes.py).
# Usage:
#   ci/gpu/bench_pair.sh NAME SUITE [opcert bench flags...]
# Writes $OUT/NAME-1.table.txt, NAME-2.table.txt (the second ends with the comparison),
# NAME-{1,2}.report.json, NAME-row-changes.csv and NAME-summary.txt (wall times, compare's exit,
# how many rows moved by more than 3%). The build stays between calls while the machine is warm
# (build/gpu); the runs go to build/benchruns/NAME-{1,2}.
# A suite longer than one device call (600 s) runs in steps, the machine kept warm between calls:
#   PAIR_RUNS="1" or "2" runs only that run (default "1 2"), and PAIR_LIMIT_S=S stops a run after
#   S seconds (SIGTERM: opcert keeps what it measured); the next call with the same run finishes
#   it with --resume. The summary adds up each run's segments.
set -uo pipefail
cd "$(dirname "$0")/../.."
name=$1 suite=$2
shift 2
mkdir -p "${OUT:=out}" build/benchruns
[ -x build/gpu/harness/cli/opcert ] || ci/gpu/build.sh > "$OUT/$name-build.log" 2>&1 || { tail -20 "$OUT/$name-build.log"; exit 2; }
opcert=build/gpu/harness/cli/opcert
runs=build/benchruns
summary=$OUT/$name-summary.txt
for i in ${PAIR_RUNS:-1 2}; do
  dir=$runs/$name-$i
  [ -f "$dir.done" ] && continue
  where=(--out "$dir")
  if [ -f "$dir/job.json" ]; then where=(--resume "$dir"); else rm -rf "$dir"; fi
  extra=()
  [ "$i" = 2 ] && extra=(--baseline "$runs/$name-1" --max-slowdown 3)
  limit=()
  [ -n "${PAIR_LIMIT_S:-}" ] && limit=(timeout -s TERM "$PAIR_LIMIT_S")
  start=$(date +%s)
  "${limit[@]}" "$opcert" bench --backend cuda --suite "$suite" "${where[@]}" "$@" "${extra[@]}" \
    >> "$OUT/$name-$i.table.txt" 2>> "$OUT/$name-$i.stderr.txt"
  rc=$?
  seconds=$(( $(date +%s) - start ))
  echo "$name-$i: rc $rc, $seconds s (${where[0]}), $(date -u +%H:%M:%SZ)" | tee -a "$summary"
  [ "$rc" = 124 ] || touch "$dir.done"
  cp "$dir/report.json" "$OUT/$name-$i.report.json" 2>/dev/null
done
[ -f "$runs/$name-1.done" ] && [ -f "$runs/$name-2.done" ] &&
  python3 ci/gpu/row_changes.py "$runs/$name-1" "$runs/$name-2" --csv "$OUT/$name-row-changes.csv" | tee -a "$summary"
exit 0
