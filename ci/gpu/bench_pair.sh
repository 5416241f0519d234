#!/usr/bin/env bash
# A bench suite twice, back to back, the second with --baseline the first (issue 42's "two runs
# compare clean"), on the GPU machine; then every row's change between the two (row_changes.py).
# Usage:
#   ci/gpu/bench_pair.sh NAME SUITE [opcert bench flags...]
# Writes $OUT/NAME-1.table.txt, NAME-2.table.txt (the second ends with the comparison),
# NAME-{1,2}.report.json, NAME-row-changes.csv and NAME-summary.txt (wall times, compare's exit,
# how many rows moved by more than 3%). The build stays between calls while the machine is warm
# (build/gpu); the runs go to build/benchruns/NAME-{1,2}.
set -uo pipefail
cd "$(dirname "$0")/../.."
name=$1 suite=$2
shift 2
mkdir -p "${OUT:=out}" build/benchruns
[ -x build/gpu/harness/cli/opcert ] || ci/gpu/build.sh > "$OUT/$name-build.log" 2>&1 || { tail -20 "$OUT/$name-build.log"; exit 2; }
opcert=build/gpu/harness/cli/opcert
runs=build/benchruns
rm -rf "$runs/$name-1" "$runs/$name-2"
summary=$OUT/$name-summary.txt
: > "$summary"
for i in 1 2; do
  extra=()
  [ "$i" = 2 ] && extra=(--baseline "$runs/$name-1" --max-slowdown 3)
  start=$(date +%s)
  "$opcert" bench --backend cuda --suite "$suite" --out "$runs/$name-$i" "$@" "${extra[@]}" \
    > "$OUT/$name-$i.table.txt" 2> "$OUT/$name-$i.stderr.txt"
  rc=$?
  echo "$name-$i: rc $rc, $(( $(date +%s) - start )) s, $(date -u +%H:%M:%SZ)" | tee -a "$summary"
  cp "$runs/$name-$i/report.json" "$OUT/$name-$i.report.json" 2>/dev/null
done
python3 ci/gpu/row_changes.py "$runs/$name-1" "$runs/$name-2" --csv "$OUT/$name-row-changes.csv" | tee -a "$summary"
