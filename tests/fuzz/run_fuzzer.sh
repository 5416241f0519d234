#!/usr/bin/env bash
# One bounded libFuzzer run of a loader target, as CI runs it (tests/fuzz/CMakeLists.txt):
#   run_fuzzer.sh FUZZER SECONDS WORK_DIR SEED_DIR SEED_SUFFIX
# The shipped files under SEED_DIR ending in SEED_SUFFIX seed a fresh corpus in WORK_DIR; the fuzzer
# runs for SECONDS; a crash, a sanitizer report or an escaped exception fails the test and leaves the
# input in WORK_DIR/artifacts, to be kept under tests/fuzz/corpus as a regression seed.
set -euo pipefail
fuzzer="$1" seconds="$2" work="$3" seed_dir="$4" suffix="$5"
rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts"
n=0
while IFS= read -r -d '' f; do
  cp "$f" "$work/corpus/seed-$n"
  n=$((n + 1))
done < <(find "$seed_dir" -type f -name "*$suffix" -print0)
[ "$n" -gt 0 ] || { echo "no seed files ending in $suffix under $seed_dir" >&2; exit 1; }
echo "$(basename "$fuzzer"): $n seeds from $seed_dir, ${seconds} s"
# -timeout: one input taking 10 s is a finding (a hang), as is one needing over 2 GB.
exec "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$work/artifacts/" "$work/corpus"
