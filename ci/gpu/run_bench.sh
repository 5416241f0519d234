#!/usr/bin/env bash
# Builds opcert on the GPU machine (ci/gpu/build.sh) and benchmarks a suite. Usage:
#   ci/gpu/run_bench.sh [SUITE] [OUT_DIR] [opcert bench flags...]   # defaults: bench/smoke, $OUT or out/gpu-bench-smoke
set -euo pipefail
cd "$(dirname "$0")/../.."
suite=${1:-bench/smoke}
out=${2:-${OUT:-out}/gpu-${suite//\//-}}
shift $(( $# < 2 ? $# : 2 ))
ci/gpu/build.sh
mkdir -p "$(dirname "$out")"
rc=0
build/gpu/harness/cli/opcert bench --suite "$suite" --out "$out" "$@" 2> "$out.stderr.log" | tee "$out.table.txt" || rc=$?
tail -5 "$out.stderr.log"
exit $rc
