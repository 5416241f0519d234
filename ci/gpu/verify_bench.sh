#!/usr/bin/env bash
# One GPU-machine session's checks of conformance and bench against the torch backend on CUDA:
# the smoke suite, bench/smoke, and the GPU.md reference shapes (torch timed alone: no CUDA backend
# yet). Everything worth keeping is copied into $OUT (at most 8 files come back).
set -uo pipefail
cd "$(dirname "$0")/../.."
work=/tmp/opcert-verify
mkdir -p "$work" "${OUT:=out}"
ci/gpu/run_smoke.sh smoke "$work/smoke" > "$OUT/smoke_console.txt" 2>&1
echo "smoke rc=$?" | tee -a "$OUT/smoke_console.txt"
cp "$work/smoke/summary.md" "$OUT/smoke_summary.md" 2>/dev/null
opcert=build/gpu/harness/cli/opcert
bench() {  # name suite filter min_time
  "$opcert" bench --backend torch --suite "$2" --filter "$3" --out "$work/$1" --benchmark_min_time="$4" \
    > "$OUT/bench_$1.txt" 2> "$work/$1.stderr"
  echo "bench $1 rc=$?" | tee -a "$OUT/bench_$1.txt"
  tail -3 "$work/$1.stderr" >> "$OUT/bench_$1.txt"
}
bench smoke bench/smoke '' 0.1
bench ref_gemm bench/gemm 'square\.(bf16|fp16)\.8192|e4m3.*8192|int8.*8192' 0.5
bench ref_other bench/attention 'sdpa_ref' 0.5
bench ref_norms bench/norms '\.ref\.' 0.5
cp "$work/ref_gemm/report.json" "$OUT/ref_gemm_report.json" 2>/dev/null
cp "$work/ref_gemm/bench.json" "$OUT/ref_gemm_bench.json" 2>/dev/null
exit 0
