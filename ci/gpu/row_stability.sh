#!/usr/bin/env bash
# One bench suite run N times as separate processes, each with repetitions, then how much each row
# moves between the runs against within one (row_stability.py): what a baseline gate over one
# run's repetitions can and cannot see.
# Usage:
#   ci/gpu/row_stability.sh NAME SUITE RUNS [opcert bench flags...]
# Writes $OUT/NAME-{1..RUNS}.table.txt and .report.json, NAME-stability.csv and NAME-summary.txt.
set -uo pipefail
cd "$(dirname "$0")/../.."
name=$1 suite=$2 count=$3
shift 3
mkdir -p "${OUT:=out}" build/benchruns
[ -x build/gpu/harness/cli/opcert ] || ci/gpu/build.sh > "$OUT/$name-build.log" 2>&1 || { tail -20 "$OUT/$name-build.log"; exit 2; }
opcert=build/gpu/harness/cli/opcert
summary=$OUT/$name-summary.txt
: > "$summary"
folders=()
for i in $(seq 1 "$count"); do
  folder=build/benchruns/$name-$i
  rm -rf "$folder"
  start=$(date +%s)
  "$opcert" bench --backend cuda --suite "$suite" --out "$folder" "$@" > "$OUT/$name-$i.table.txt" 2> "$OUT/$name-$i.stderr.txt"
  echo "$name-$i: rc $?, $(( $(date +%s) - start )) s, $(date -u +%H:%M:%SZ)" | tee -a "$summary"
  cp "$folder/report.json" "$OUT/$name-$i.report.json" 2>/dev/null
  folders+=("$folder")
done
python3 ci/gpu/row_stability.py "${folders[@]}" --csv "$OUT/$name-stability.csv" | tee -a "$summary"
