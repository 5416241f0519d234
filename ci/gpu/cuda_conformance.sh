#!/usr/bin/env bash
# The CUDA backend on the GPU machine: build (ci/gpu/build.sh), then conformance on the smoke, sweep
# and model suites (`opcert run --backend cuda`, torch as the alignment peer), then the bench
# figures of docs/PERFORMANCE.md against torch in the same run. Usage:
#   ci/gpu/cuda_conformance.sh [FILTER] [BENCH_FILTER]   # regexes over case ids; '' runs everything
# What is worth keeping lands in $OUT (at most 8 files come back from the device tool).
set -uo pipefail
cd "$(dirname "$0")/../.."
filter=${1:-}
bench_filter=${2:-}
work=/tmp/opcert-cuda
mkdir -p "$work" "${OUT:=out}"
ci/gpu/build.sh > "$OUT/build.txt" 2>&1 || { cat "$OUT/build.txt"; exit 2; }
opcert=build/gpu/harness/cli/opcert
"$opcert" list 2>&1 | grep -E '^ *cuda|unavailable' -A1 | head -20 >> "$OUT/build.txt"
summary="$OUT/conformance.txt"
: > "$summary"
for suite in smoke sweeps/gemm sweeps/gemm_fp8 sweeps/gemm_int8 sweeps/quantize sweeps/attention sweeps/rms_norm \
             sweeps/layer_norm sweeps/rope sweeps/softmax models/llama3-8b models/llama3-70b models/wan2.1-14b; do
  name=${suite//\//-}
  "$opcert" run --backend cuda --suite "$suite" --filter "$filter" --out "$work/$name" --progress plain \
    > "$work/$name.log" 2>&1
  rc=$?
  echo "== $suite rc=$rc" >> "$summary"
  grep -E " (FAILED|ERROR|CRASHED|TIMEOUT|SKIPPED|MISTRUSTED) " "$work/$name.log" | grep -v '(peer)' | head -40 >> "$summary"
  grep -E "^cuda +all ops|^torch +all ops" "$work/$name.log" >> "$summary"
done
if [ -n "$bench_filter" ]; then
  for suite in bench/gemm bench/attention bench/norms; do
    name=${suite//\//-}
    "$opcert" bench --backend cuda --suite "$suite" --filter "$bench_filter" --out "$work/$name" \
      --benchmark_min_time=0.3s --benchmark_repetitions=3 >> "$OUT/bench.txt" 2> "$work/$name.stderr"
    echo "bench $suite rc=$?" >> "$OUT/bench.txt"
  done
fi
exit 0
